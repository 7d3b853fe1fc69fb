#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bits.py ROOT[:ASMDIR]...: each unknown bit of the survey's probes
(userspace/atlas.h) is undefined in its family of flags,
in every uapi tree given (make headers_install's, as make census makes
them: bookworm's 6.1, 6.12's, sid's 7.2).

A family is the flag macros the kernel checks the probe's argument
against, by name, in the headers that define them.  Each macro the
preprocessor defines there (gcc -dM) whose name matches is compiled as an
unsigned long long constant and read back from the object, as
generic/lint/uapi-lint.py reads its constants: no value is parsed here.
Prints "not ok" with the macro for a bit a tree defines, "ok" otherwise,
and exits 1 on any "not ok".  MSG_* is not uapi (include/linux/socket.h),
and a call's own flags (1<<30, "flags 1") are each proven by its row on
the newest kernel, which rejects the bit: neither is checked here.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    'uapi_lint', os.path.join(HERE, '..', '..', 'generic', 'lint', 'uapi-lint.py'))
uapi_lint = importlib.util.module_from_spec(spec)
spec.loader.exec_module(uapi_lint)

ATLAS = os.path.join(HERE, '..', '..', 'userspace', 'atlas.h')
# the survey's name (its value read from userspace/atlas.h), the headers,
# the macros' names (a regex)
FAMILIES = [
    ('O_UNKNOWN', ['linux/fcntl.h'], r'^_*O_[A-Z0-9_]+$'),
    ('AT_UNKNOWN', ['linux/fcntl.h'], r'^AT_[A-Z0-9_]+$'),
    ('AT_UNKNOWN', ['linux/fs.h'], r'^RENAME_[A-Z0-9_]+$'),
    ('MAP_UNKNOWN', ['linux/mman.h'], r'^MAP_[A-Z0-9_]+$'),
    ('MFD_UNKNOWN', ['linux/memfd.h'], r'^MFD_[A-Z0-9_]+$'),
    ('CLONE_UNKNOWN', ['linux/sched.h'], r'^CLONE_[A-Z0-9_]+$'),
    ('WAIT_UNKNOWN', ['linux/wait.h'], r'^(W[A-Z]+|__W[A-Z]+)$'),
    ('RWF_UNKNOWN', ['linux/fs.h'], r'^RWF_[A-Z0-9_]+$'),
    ('IN_UNKNOWN', ['linux/inotify.h'], r'^IN_[A-Z0-9_]+$'),
    ('FUTEX2_UNKNOWN', ['linux/futex.h'], r'^FUTEX2_[A-Z0-9_]+$'),
    ('MS_UNKNOWN', ['linux/mount.h'], r'^MS_[A-Z0-9_]+$'),
]
# masks of every bit, magic numbers, AT_FDCWD (a dirfd): not flags a
# caller passes
NOT_FLAGS = re.compile(r'^(AT_FDCWD|MS_MGC_\w+|MS_RMT_MASK|MFD_HUGE_(MASK|SHIFT)|'
                       r'MAP_HUGE_(MASK|SHIFT)|MAP_TYPE|O_ACCMODE|AT_RECURSIVE|'
                       r'RWF_SUPPORTED|IN_ALL_EVENTS|IN_CLOSE|IN_MOVE|'
                       r'CLONE_LEGACY_FLAGS|FUTEX2_SIZE_MASK)$')


def values_of(headers, inc, names, work):
    """Each name's value as the compiler sees it; a name that is not an
    integer constant (a string, a function-like use) is left out."""
    names = list(names)
    for _ in range(len(names) + 1):
        src = os.path.join(work, 'bits.c')
        with open(src, 'w') as f:
            for h in headers:
                f.write(('#include "%s"\n' if h.startswith('/') else '#include <%s>\n') % h)
            n = len(headers) + 1
            for i, m in enumerate(names):
                f.write('unsigned long long census_c%d = (unsigned long long)(%s);\n' % (i, m))
        obj = os.path.join(work, 'bits.o')
        r = subprocess.run(['gcc', '-m64', '-c', '-w', '-o', obj] +
                           sum([['-I', d] for d in inc], []) + [src],
                           capture_output=True, text=True)
        if not r.returncode:
            got = uapi_lint.values(obj, {'census_c%d' % i for i in range(len(names))},
                                   'm64')
            return {m: got.get('census_c%d' % i) for i, m in enumerate(names)}
        bad = {int(x) - n for x in re.findall(r'bits\.c:(\d+):\d+: error', r.stderr)}
        if not bad or any(b < 0 for b in bad):
            raise SystemExit('bits.py: %s: %s' % (' '.join(headers),
                                                   r.stderr.strip().splitlines()[0]))
        names = [m for i, m in enumerate(names) if i not in bad]
    return {}


def main():
    trees = sys.argv[1:]
    if not trees:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        bits = values_of([os.path.abspath(ATLAS)], [], sorted({f[0] for f in FAMILIES}),
                         work)
    for tree in trees:
        root, _, asm = tree.partition(':')
        inc = [root] + ([asm] if asm else [])
        with tempfile.TemporaryDirectory() as work:
            for bit, headers, pattern in FAMILIES:
                value = bits[bit]
                r = subprocess.run(['gcc', '-m64', '-dM', '-E', '-x', 'c', '-'] +
                                   sum([['-I', d] for d in inc], []),
                                   input=''.join('#include <%s>\n' % h for h in headers),
                                   capture_output=True, text=True)
                if r.returncode:
                    print('not ok - %s: %s does not compile: %s'
                          % (root, ' '.join(headers), r.stderr.strip().splitlines()[0]))
                    bad += 1
                    continue
                names = sorted({m.group(1) for m in
                                re.finditer(r'^#define (\w+) ', r.stdout, re.M)
                                if re.match(pattern, m.group(1)) and
                                not NOT_FLAGS.match(m.group(1))})
                vals = values_of(headers, inc, names, work)
                hits = sorted(m for m, v in vals.items() if v is not None and v & value)
                what = '%s (%#x) against %d %s macros of %s' % (
                    bit, value, len(vals), pattern.strip('^$'), ' '.join(headers))
                if hits:
                    print('not ok - %s: %s: defined as %s' % (root, what, ', '.join(hits)))
                    bad += 1
                elif not vals:
                    # FUTEX2_* on 6.1: the flags, and the calls, came later
                    print('ok - %s: %s # SKIP none defined in this tree' % (root, what))
                else:
                    print('ok - %s: %s' % (root, what))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
