#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""witness.py PINNED VERSION=TREE...: where each flag row of the survey is
decided, found in each kernel tree.

lab/survey/witnesses.tsv names, for each row of part 1, the file and the
function of the kernel where the bit is checked (or dropped) and a string
of that function's body.  For each tree (Debian's linux-source of a
version), the function is found in the file -- SYSCALL_DEFINE(name) is a
system call's own body -- and the string in its body, whitespace taken as
one space; "a|b" in the file or the function is either, as the
releases name them (the first is printed, another named where it was
found); a row named on a second line is another form of its check, as
an older release writes it.  PINNED is `flagsfirst survey --pinned`: a row whose call came
after a tree's version (its "since", the first release of a range) is
expected to be missing there.  Prints a line per row and tree, "ok -" or
"not ok -", then (with --md FILE) writes the Markdown table of
docs/survey.md's witnesses; exits 1 on a "not ok", or on a flag row of
PINNED without a witness.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def release(s):
    m = re.match(r'(\d+)\.(\d+)', s)
    return int(m.group(1)) * 1000 + int(m.group(2)) if m else 0


def body(text, func):
    """The text of @func's definition, from its first line to the brace
    that closes it, whitespace as one space; None if not defined."""
    if func.startswith('SYSCALL_DEFINE('):
        pat = r'^SYSCALL_DEFINE\d\(%s,' % re.escape(func[15:-1])
    else:
        pat = r'^[A-Za-z_][^;=]*\b%s\(' % re.escape(func)
    for m in re.finditer(pat, text, re.M):
        depth, i, seen = 0, m.start(), False
        while i < len(text):
            c = text[i]
            if c == ';' and not seen:
                break		# a prototype
            if c == '{':
                depth += 1
                seen = True
            elif c == '}':
                depth -= 1
                if seen and depth == 0:
                    return ' '.join(text[m.start():i + 1].split())
            i += 1
    return None


def main():
    args = sys.argv[1:]
    md = None
    if args[:1] == ['--md']:
        md, args = args[1], args[2:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    pinned, trees = args[0], [a.split('=', 1) for a in args[1:]]
    since = {}
    for line in open(pinned):
        f = line.rstrip('\n').split('\t')
        if len(f) >= 3 and f[1] == '1' and not f[0].endswith('-uid65534'):
            since[f[0]] = f[2]
    # a row named again is another form of its check (an older release's)
    rows, alts = [], {}
    for line in open(os.path.join(HERE, 'witnesses.tsv')):
        if line.startswith('#') or not line.strip():
            continue
        f = line.rstrip('\n').split('\t')
        if f[0] not in alts:
            rows.append(f)
        alts.setdefault(f[0], []).append(f[1:])
    bad = 0
    for name in sorted(set(since) - {r[0] for r in rows}):
        print('not ok - %s: a flag row with no witness' % name)
        bad += 1
    cache = {}
    table = []
    for name, path, func, check in rows:
        cells = []
        for ver, tree in trees:
            found = None
            # "a|b": the file, or the function, as one release or another has it
            for a_path, a_func, a_check in alts[name]:
                for p in a_path.split('|'):
                    key = (tree, p)
                    if key not in cache:
                        try:
                            cache[key] = open(os.path.join(tree, p),
                                              errors='replace').read()
                        except OSError:
                            cache[key] = ''
                    for fn in a_func.split('|'):
                        b = body(cache[key], fn)
                        if b is not None and ' '.join(a_check.split()) in b:
                            found = (p, fn, a_check)
                            break
                    if found:
                        break
                if found:
                    break
            later = release(since.get(name, '0')) > release(ver)
            if found:
                first = (path.split('|')[0], func.split('|')[0], check)
                cells.append('yes' if found == first else 'yes: %s' % '; '.join(
                    '`%s`' % x.replace('|', '\\|') for x, y in zip(found, first) if x != y))
                print('ok - %s %s: %s %s' % (ver, name, found[0], found[1]))
            elif later:
                cells.append('(later)')
                print('ok - %s %s: not there yet (since %s)' % (ver, name, since[name]))
            else:
                cells.append('**no**')
                print('not ok - %s %s: no "%s" in %s of %s' % (ver, name, check, func, path))
                bad += 1
        table.append((name, path, func, check, cells))
    if md:
        with open(md, 'w') as f:
            f.write('| row | where (file, function) | the check | %s |\n'
                    % ' | '.join(v for v, _ in trees))
            f.write('| --- | --- | --- |%s\n' % (' --- |' * len(trees)))
            for name, path, func, check, cells in table:
                f.write('| `%s` | %s, `%s` | `%s` | %s |\n' % (
                    name, path.split('|')[0], func.split('|')[0], check.replace('|', '\\|'),
                    ' | '.join(cells)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
