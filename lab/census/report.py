#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py DIR KERNEL...: the census tables (Markdown) from DIR/KERNEL.tsv,
as generic/lint/uapi-lint.py --tsv wrote them."""

import collections
import os
import sys


def load(path):
    cmds = collections.OrderedDict()
    broken = 0
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if len(f) < 8:
            continue
        hdr, ioctl, d, payload, sizes, kind, detail, facts = f[:8]
        if kind == 'does-not-compile':
            broken += 1
            continue
        c = cmds.setdefault((hdr, ioctl), {'payload': payload, 'kinds': set(),
                                           'facts': facts, 'header': hdr,
                                           'sizes': sizes.split('/')})
        c['kinds'].add(kind)
    return cmds, broken


def subsystem(hdr):
    parts = hdr.split('/')
    if parts[0] == 'linux' and len(parts) == 2:
        return parts[1][:-2] if parts[1].endswith('.h') else parts[1]
    if parts[0] == 'linux':
        return parts[1]		# linux/android/binder.h: android
    return parts[0] if len(parts) > 1 else hdr


def is_struct(c):
    return c['payload'].startswith(('struct ', 'union ')) and 'undefined' not in c['kinds']


def stats(cmds):
    s = collections.Counter()
    for c in cmds.values():
        s['commands'] += 1
        if 'undefined' in c['kinds']:
            s['undefined'] += 1
        if not is_struct(c):
            continue
        k = c['kinds']
        s['struct'] += 1
        s['flags'] += 'flags=-' not in c['facts']
        s['holes'] += bool(k & {'hole', 'tail-padding'})
        s['abi-differs'] += 'abi-differs' in k
        s['abi-type'] += 'abi-type' in k
        s['size-ver'] += 'size_vers=-' not in c['facts']
        s['disciplined'] += disciplined(c)
    return s


def disciplined(c):
    """A flags field, and no hole, padding or ABI difference."""
    return 'flags=-' not in c['facts'] and not (
        c['kinds'] & {'hole', 'tail-padding', 'abi-differs', 'abi-type', 'size-ver',
                      'too-big'})


def pct(a, b):
    return '%d (%.0f%%)' % (a, 100.0 * a / b) if b else '0'


def main():
    out, kernels = sys.argv[1], sys.argv[2:]
    data = {k: load('%s/%s.tsv' % (out, k)) for k in kernels}
    print('| | ' + ' | '.join(kernels) + ' |')
    print('| --- |' + ' --- |' * len(kernels))
    st = {k: stats(data[k][0]) for k in kernels}
    rows = [('ioctl commands', 'commands', None),
            ('headers that do not compile alone', None, None),
            ('commands whose payload the header does not define', 'undefined', None),
            ('commands with a struct payload', 'struct', None),
            ('... with a flags field', 'flags', 'struct'),
            ('... with a hole or tail padding', 'holes', 'struct'),
            ('... whose layout differs between -m32 and -m64', 'abi-differs', 'struct'),
            ('... with a field whose size depends on the ABI or compiler', 'abi-type', 'struct'),
            ('... with a size-versioning scheme (*_SIZE_VER<n>)', 'size-ver', 'struct'),
            ('... with all of: flags, no hole, one layout, fixed types', 'disciplined', 'struct')]
    for label, key, of in rows:
        cells = []
        for k in kernels:
            if key is None:
                cells.append(str(data[k][1]))
            elif of:
                cells.append(pct(st[k][key], st[k][of]))
            else:
                cells.append(str(st[k][key]))
        print('| %s | %s |' % (label, ' | '.join(cells)))
    last = kernels[-1]
    cmds = data[last][0]
    per = collections.defaultdict(lambda: [0, 0])
    for c in cmds.values():
        if is_struct(c):
            per[subsystem(c['header'])][0] += 1
            per[subsystem(c['header'])][1] += disciplined(c)
    ranked = sorted(((d / n, n, name) for name, (n, d) in per.items() if n >= 5),
                    key=lambda t: (-t[0], -t[1], t[2]))
    print()
    print('Subsystems on %s with five struct ioctls or more, by the share that has a'
          ' flags field, no hole, one layout and fixed types:' % last)
    print()
    print('| best | struct ioctls | disciplined | | worst | struct ioctls | disciplined |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    best, worst = ranked[:8], list(reversed(ranked[-8:]))
    for i in range(max(len(best), len(worst))):
        b = best[i] if i < len(best) else None
        w = worst[i] if i < len(worst) else None
        cell = lambda t: ('`%s` | %d | %.0f%%' % (t[2], t[1], 100 * t[0])) if t else ' | | '
        print('| %s | | %s |' % (cell(b), cell(w)))
    if len(kernels) > 1:
        first = kernels[0]
        # by name: a command that moved to another header did not come
        old = {key[1] for key in data[first][0]}
        now = {key[1] for key in cmds}
        new = {key: c for key, c in cmds.items() if key[1] not in old}
        gone = old - now
        kept = {key: c for key, c in cmds.items() if key[1] in old}
        ns, ks = stats(new), stats(kept)
        print()
        print('Between %s and %s: %d ioctl commands came, %d went.  Of those that came, '
              '%s of %d with a struct payload are disciplined, beside %s of the %d that '
              'were there already; %s of the new ones have a flags field, beside %s.'
              % (first, last, len(new), len(gone), pct(ns['disciplined'], ns['struct']),
                 ns['struct'], pct(ks['disciplined'], ks['struct']), ks['struct'],
                 pct(ns['flags'], ns['struct']), pct(ks['flags'], ks['struct'])))
        news = sorted({subsystem(c['header']) for c in new.values() if is_struct(c)})
        if news:
            print()
            print('Where the new struct ioctls are: ' + ', '.join('`%s`' % n for n in news) + '.')
    arm_path = '%s/%s.arm.tsv' % (out, last)
    if os.path.exists(arm_path):
        arm = load(arm_path)[0]
        x86 = {key: c for key, c in cmds.items()
               if is_struct(c) and not key[0].startswith('asm/')}
        # a struct each architecture defines its own way (asm/kvm.h's) is
        # not one layout seen by two ABIs: the same size on both 64-bit
        # ABIs or left out
        both = [key for key in x86 if key in arm and is_struct(arm[key]) and
                x86[key]['sizes'][0] == arm[key]['sizes'][0]]
        i386 = [key for key in both if 'abi-differs' in x86[key]['kinds']]
        armd = [key for key in both if 'abi-differs' in arm[key]['kinds']]
        print()
        print('On %s, of the %d struct payloads of the headers common to all '
              'architectures (as big on arm64 as on x86-64), %s differ between -m32 and -m64 and %s between armhf '
              'and arm64; %d differ on both (a long, a pointer: a size every 32-bit '
              'ABI shares), %d on i386 alone (it aligns a __u64 to 4 bytes, armhf to '
              '8), %d on armhf alone.'
              % (last, len(both), pct(len(i386), len(both)), pct(len(armd), len(both)),
                 len(set(i386) & set(armd)), len(set(i386) - set(armd)),
                 len(set(armd) - set(i386))))


if __name__ == '__main__':
    main()
