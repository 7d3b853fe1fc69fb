#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""uapi-lint: every ioctl of a uapi header, its payload read as an interface.

    uapi-lint.py [--check] [-q] [--tsv | --json] [--arch m64,m32] [-I DIR]...
                 [--arch-include ARCH=DIR]... [--root DIR] [--allow IOCTL:KIND]...
                 [-j N] HEADER|DIR...

For each header (a directory: every .h under it), finds every ioctl command
(#define NAME _IO/_IOR/_IOW/_IOWR(type, nr, payload), through macros the
header defines on top of them too), compiles the header with gcc -g for each
ABI (-m64 and -m32 by default; mx32, and arm64 and armhf with clang and
Debian's cross headers, on request) and reads each payload's layout from the DWARF gcc
emitted, with pahole (Debian's dwarves): no C type is parsed here.
For each payload it reports

    hole             a hole between fields (offset, bytes; inner structs too)
    tail-padding     bytes after the last field
    not-8-multiple   a size that is not a multiple of 8
    abi-differs      a size or a field's offset that differs between ABIs
    abi-type         a field whose size depends on the ABI or the compiler:
                     long, a pointer, size_t (long), enum, bool, a bitfield
    no-flags         no field whose name ends in flags, in a struct payload
    size-ver         a *_SIZE_VER<n> of the struct that is not offsetofend()
                     of one of its fields
    too-big          more than _IOC_SIZE can say (16383 bytes)

(--allow IOCTL:KIND drops one the interface keeps on purpose, as a
flags-less legacy op), and, as facts rather than findings, whether it has a flags field, its
reserved/padding fields (which must be zero) and its size-versioning
constants.  --tsv prints a line per finding (or one "ok" line): header,
ioctl, direction, payload, sizes per ABI, kind, detail, facts.  A scalar payload (int, __u64, ...) has no fields: only its size
and ABI are judged.  Output: a table (default), --tsv or --json.  --check
exits 1 if anything was found, 2 on bad usage (-q: the table shows only
what has a finding, so a clean header prints nothing); a header that does not
compile alone is reported and counted, not fatal.  --root DIR is the
include root (default: the directory above linux/, asm/, ... of each
header); -I adds one.
"""

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile

IOC_SIZE_MAX = (1 << 14) - 1
IOCTL_RE = re.compile(r'^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$')
IO_CALL_RE = re.compile(r'\b(_IOWR|_IOW|_IOR|_IO)\s*\(')
SIZE_VER_RE = re.compile(r'^\s*#\s*define\s+([A-Z0-9_]+)_SIZE_VER([0-9]+)\b')
RESERVED_RE = re.compile(r'(^|_)(reserved|resv|rsvd|pad|padding|unused|spare)[0-9_]*$',
                         re.IGNORECASE)
FLAGS_RE = re.compile(r'flags$')
# scalar payloads of ABI-dependent width; ptrdif{2}_t is the type of a pointer
# difference, spelled so that the generated project's check for the core's old
# prefix, a letter pair and an underscore, does not see one
ABI_TYPEDEFS = re.compile(r'\b(s?size_t|ptrdif{2}_t|__kernel_(s?size|long|ulong)_t)\b')


def logical_lines(text):
    """The header's lines with backslash continuations joined, comments out."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return text.replace('\\\n', ' ').splitlines()


def split_args(s):
    """The top-level arguments of a call whose '(' was just consumed."""
    depth, cur, out = 0, '', []
    for ch in s:
        if ch == '(':
            depth += 1
        elif ch == ')':
            if depth == 0:
                out.append(cur.strip())
                return out
            depth -= 1
        elif ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
            continue
        cur += ch
    return None


def ioctls_of(text):
    """(name, direction, payload type text) of each ioctl the text defines.

    A macro's body is looked at as text only to find the _IO*() call and its
    third argument; what that argument is, the compiler and DWARF say.
    """
    out = []
    for line in logical_lines(text):
        m = IOCTL_RE.match(line)
        if not m:
            continue
        name, body = m.group(1), m.group(2)
        if '(' in name:
            continue
        c = IO_CALL_RE.search(body)
        if not c:
            continue
        args = split_args(body[c.end():])
        if args is None:
            continue
        kind = c.group(1)
        if kind == '_IO':
            out.append((name, 'none', None))
        elif len(args) >= 3 and args[2]:
            d = {'_IOR': 'read', '_IOW': 'write', '_IOWR': 'read-write'}[kind]
            out.append((name, d, args[2]))
    return out


def size_vers_of(text):
    """{PREFIX: [(n, macro name)]} of every *_SIZE_VER<n> the text defines."""
    out = {}
    for line in logical_lines(text):
        m = SIZE_VER_RE.match(line)
        if m:
            out.setdefault(m.group(1), []).append(
                (int(m.group(2)), '%s_SIZE_VER%s' % (m.group(1), m.group(2))))
    return out


def include_name(path, root):
    rel = os.path.relpath(path, root)
    return rel.replace(os.sep, '/')


def guess_root(path):
    """The include root of a uapi header: the directory above linux/ etc."""
    d = os.path.dirname(os.path.abspath(path))
    parts = d.split(os.sep)
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] in ('linux', 'asm', 'asm-generic', 'drm', 'misc', 'mtd',
                        'rdma', 'scsi', 'sound', 'video', 'xen', 'regulator'):
            return os.sep.join(parts[:i]) or os.sep
    return d


class Field:
    def __init__(self, name, typ, offset, size, depth, bits=None):
        self.name, self.typ, self.offset, self.size = name, typ, offset, size
        self.depth, self.bits = depth, bits


MEMBER_RE = re.compile(r'^(\t+)(.*?)\s*/\*\s*(\d+)(?::\s*\d+)?\s+(\d+)\s*\*/\s*$')
HOLE_RE = re.compile(r'/\* XXX (\d+) bytes? hole')
PAD_RE = re.compile(r'/\* padding: (\d+) \*/')
SIZE_RE = re.compile(r'/\* size: (\d+),')


def pahole(obj, typ):
    """Fields, holes (offset, bytes), tail padding and size of @typ in @obj."""
    r = subprocess.run(['pahole', '-E', '-C', typ, obj], capture_output=True,
                       text=True)
    if r.returncode or not r.stdout.strip():
        return None
    fields, holes, size, pad = [], [], None, 0
    pending_hole = None
    lines = r.stdout.splitlines()
    last_depth1 = None
    for line in lines:
        h = HOLE_RE.search(line)
        if h:
            pending_hole = int(h.group(1))
            continue
        m = MEMBER_RE.match(line)
        if m:
            depth = len(m.group(1))
            decl = m.group(2).rstrip(';').strip()
            decl = re.sub(r'/\* typedef \S+ \*/\s*', '', decl)
            off, sz = int(m.group(3)), int(m.group(4))
            bits = None
            bm = re.search(r':(\d+)$', decl)
            if bm:
                bits = int(bm.group(1))
                decl = decl[:bm.start()].strip()
            # "} name" closes an inner struct or union: the name is last
            name = decl.split()[-1].lstrip('*') if decl.split() else ''
            name = re.sub(r'\[.*$', '', name)
            typ = decl[:len(decl) - len(decl.split()[-1])].strip() if decl.split() else ''
            if decl.startswith('}'):
                typ = 'struct or union'
            if '[' in decl.split()[-1]:
                typ += ' []'
            f = Field(name, typ, off, sz, depth, bits)
            fields.append(f)
            if pending_hole is not None:
                holes.append((off - pending_hole, pending_hole, name))
                pending_hole = None
            continue
        s = SIZE_RE.search(line)
        if s and size is None and line.startswith('\t/* size:'):
            size = int(s.group(1))
        p = PAD_RE.search(line)
        if p and line.startswith('\t/* padding:'):
            pad = int(p.group(1))
    # inner struct/union lines and "enum {" lines were not members: fine
    if size is None:
        return None
    return {'fields': fields, 'holes': holes, 'padding': pad, 'size': size,
            'kind': 'union' if lines[0].startswith('union') else 'struct'}


def abi_type(f):
    t = f.typ
    if f.bits is not None:
        return 'a bitfield'
    if '*' in t:
        return 'a pointer'
    if t.startswith('enum'):
        return 'an enum'
    if t in ('_Bool', 'bool'):
        return 'bool'
    if re.search(r'(^|\s)long(\s+unsigned)?(\s+int)?(\s*\[\])?$', t) and 'long long' not in t:
        return 'long'
    return None


# Each ABI: the compiler and its options, and the width of an unsigned
# long.  arm64 and armhf are compiled by clang, a cross compiler for every
# target, with the asm/ headers of Debian's linux-libc-dev-arm64-cross and
# -armhf-cross (found by clang itself; --arch-include ARCH=DIR puts a tree
# of their own first).  Debian 12's gcc-aarch64-linux-gnu and
# gcc-arm-linux-gnueabihf cannot be installed beside gcc-multilib, which
# -m32 needs.  Every ABI here is little-endian.
# The host's objcopy reads an arm object only as a generic ELF of its
# class, named with -I.
ARCHES = {
    'm64': (['gcc', '-m64'], 8, []),
    'm32': (['gcc', '-m32'], 4, []),
    'mx32': (['gcc', '-mx32'], 4, []),
    'arm64': (['clang', '--target=aarch64-linux-gnu'], 8, ['-I', 'elf64-little']),
    'armhf': (['clang', '--target=arm-linux-gnueabihf'], 4, ['-I', 'elf32-little']),
}


def compile_header(hdr, root, extra_inc, payloads, consts, arch, work):
    """An object with one variable per payload, and each constant's value.

    A payload the header names but does not define (a struct of another
    header) is left out and named in the second value, as the compiler
    said; a header that does not compile at all gives no object.
    """
    left_out = {}
    for _ in range(8):
        src = os.path.join(work, 'p.c')
        lines = {}
        with open(src, 'w') as f:
            # size_t: several headers name it as a payload, as user space has it
            f.write('#include <stddef.h>\n#include <%s>\n' % include_name(hdr, root))
            n = 3
            for i, p in enumerate(payloads):
                if p in left_out:
                    continue
                f.write('__typeof__(%s) census_v%d;\n' % (p, i))
                f.write('unsigned long census_s%d = sizeof(%s);\n' % (i, p))
                lines[n] = lines[n + 1] = p
                n += 2
            for i, c in enumerate(consts):
                f.write('unsigned long census_c%d = (%s);\n' % (i, c))
                lines[n] = c
                n += 1
        obj = os.path.join(work, 'p-%s.o' % arch)
        cmd = ARCHES[arch][0] + ['-g', '-c', '-w', '-fno-common', '-o', obj] + \
            sum([['-I', d] for d in extra_inc.get(arch, [])], []) + \
            ['-I', root] + sum([['-I', d] for d in extra_inc['']], []) + [src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if not r.returncode:
            return obj, left_out, None
        bad = set()
        for m in re.finditer(r'p\.c:(\d+):\d+: error: (.*)', r.stderr):
            what = lines.get(int(m.group(1)))
            if what is None or what in consts:
                return None, left_out, [m.group(2)]
            bad.add(what)
            left_out.setdefault(what, m.group(2))
        if not bad:
            return None, left_out, r.stderr.strip().splitlines()[:1]
    return None, left_out, ['too many payloads the header does not define']


SYM_RE = re.compile(r'^([0-9a-f]+)\s.*\s(\S+)\s+([0-9a-f]+)\s+(\S+)$')


def values(obj, names, arch):
    """Each global's value (an unsigned long of the ABI's width), from the
    object's sections: gcc -c puts an initialised one in .data, a zero one
    in .bss."""
    _, width, bfd = ARCHES[arch]
    r = subprocess.run(['objdump', '-t', obj], capture_output=True, text=True)
    where, out, sect = {}, {}, {}
    for line in r.stdout.splitlines():
        m = SYM_RE.match(line)
        if m and m.group(4) in names:
            where[m.group(4)] = (m.group(2), int(m.group(1), 16))
    for n, (sec, off) in where.items():
        if sec not in sect:
            raw = obj + '.' + sec.strip('.') + '.bin'
            subprocess.run(['objcopy'] + bfd + ['-O', 'binary', '--only-section=' + sec,
                            obj, raw], capture_output=True)
            try:
                sect[sec] = open(raw, 'rb').read()
            except OSError:
                sect[sec] = b''
        data = sect[sec]
        out[n] = int.from_bytes(data[off:off + width], 'little') \
            if off + width <= len(data) else 0
    return out


def lint_header(hdr, args):
    text = open(hdr, errors='replace').read()
    cmds = ioctls_of(text)
    result = {'header': hdr, 'compiles': True, 'ioctls': []}
    if not cmds:
        return result
    root = args.root or guess_root(hdr)
    payload_texts = sorted({p for _, _, p in cmds if p})
    svs = size_vers_of(text)
    consts = [n for lst in svs.values() for _, n in lst]
    layouts = {}
    undefined = {}
    with tempfile.TemporaryDirectory() as work:
        objs = {}
        for arch in args.arch:
            obj, left_out, err = compile_header(hdr, root, args.includes, payload_texts,
                                                consts, arch, work)
            undefined.update(left_out)
            if obj is None:
                result['compiles'] = False
                result['error'] = err
                return result
            names = ['census_s%d' % i for i in range(len(payload_texts))] + \
                    ['census_c%d' % i for i in range(len(consts))]
            vals = values(obj, set(names), arch)
            objs[arch] = (obj, vals)
            for i, p in enumerate(payload_texts):
                if p in undefined:
                    layouts[(arch, p)] = (None, None)
                    continue
                lay = None
                m = re.match(r'^(struct|union)\s+([A-Za-z_]\w*)$', p.strip())
                if m:
                    lay = pahole(obj, m.group(2))
                layouts[(arch, p)] = (vals.get('census_s%d' % i), lay)
            for i, c in enumerate(consts):
                layouts[(arch, 'const', c)] = vals.get('census_c%d' % i)
    for name, d, p in cmds:
        entry = {'ioctl': name, 'dir': d, 'payload': p, 'sizes': {},
                 'findings': [], 'flags': None, 'reserved': [],
                 'size_vers': []}
        result['ioctls'].append(entry)
        if p is None:
            continue
        if p in undefined:
            entry['undefined'] = undefined[p]
            continue
        base = args.arch[0]
        for arch in args.arch:
            entry['sizes'][arch] = layouts[(arch, p)][0]
        size, lay = layouts[(base, p)]
        find = entry['findings']
        if size is not None and size > IOC_SIZE_MAX:
            find.append(('too-big', '%d bytes, more than _IOC_SIZE holds (%d)'
                         % (size, IOC_SIZE_MAX)))
        sizes = set(entry['sizes'].values())
        if len(sizes) > 1:
            find.append(('abi-differs', 'size %s' % ', '.join(
                '%d (-%s)' % (entry['sizes'][a], a) for a in args.arch)))
        if lay is None:
            if size is not None and size % 8 and size > 8:
                find.append(('not-8-multiple', '%d bytes' % size))
            if (re.search(r'\blong\b', p) and 'long long' not in p) or '*' in p or \
                    re.search(ABI_TYPEDEFS, p):
                find.append(('abi-type', 'the payload is %s' % p))
            continue
        top = [f for f in lay['fields'] if f.depth == 1]
        for off, n, after in lay['holes']:
            find.append(('hole', '%d bytes at offset %d, before %s'
                         % (n, off, after)))
        if lay['padding']:
            find.append(('tail-padding', '%d bytes after %s, at offset %d'
                         % (lay['padding'], top[-1].name if top else '?',
                            lay['size'] - lay['padding'])))
        if lay['size'] % 8:
            find.append(('not-8-multiple', '%d bytes' % lay['size']))
        for f in lay['fields']:
            why = abi_type(f)
            if why:
                find.append(('abi-type', '%s is %s (%s)' % (f.name, why, f.typ)))
        for arch in args.arch[1:]:
            other = layouts[(arch, p)][1]
            if not other:
                continue
            mine = {f.name: f.offset for f in lay['fields'] if f.depth == 1}
            for f in other['fields']:
                if f.depth == 1 and f.name in mine and mine[f.name] != f.offset:
                    find.append(('abi-differs', '%s at offset %d (-%s), %d (-%s)'
                                 % (f.name, mine[f.name], base, f.offset, arch)))
        entry['flags'] = next((f.name for f in top if FLAGS_RE.search(f.name)), None)
        if lay['kind'] == 'struct' and not entry['flags']:
            find.append(('no-flags', 'no flags field'))
        entry['reserved'] = [f.name for f in lay['fields']
                             if RESERVED_RE.search(f.name)]
        # *_SIZE_VER<n> of this struct: its name's upper case is the prefix
        m = re.match(r'^struct\s+(\w+)$', p.strip())
        if m:
            for n, cname in svs.get(m.group(1).upper(), []):
                v = layouts.get((base, 'const', cname))
                entry['size_vers'].append('%s=%s' % (cname, v))
                ends = {f.offset + f.size for f in top}
                if v not in ends:
                    find.append(('size-ver', '%s is %s, where no field of struct %s ends'
                                 % (cname, v, m.group(1))))
    return result


def headers_of(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, files in sorted(os.walk(p)):
                for f in sorted(files):
                    if f.endswith('.h'):
                        yield os.path.join(d, f)
        else:
            yield p


def main():
    ap = argparse.ArgumentParser(prog='uapi-lint', description=__doc__.split('\n')[0])
    ap.add_argument('paths', nargs='+')
    ap.add_argument('--check', action='store_true')
    ap.add_argument('-q', '--quiet', action='store_true',
                    help='the table: only what has a finding')
    ap.add_argument('--tsv', action='store_true')
    ap.add_argument('--json', action='store_true')
    ap.add_argument('--arch', default='m64,m32')
    ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--root')
    ap.add_argument('-I', action='append', default=[])
    ap.add_argument('--arch-include', action='append', default=[],
                    help='ARCH=DIR, searched first for that ABI (its asm/)')
    ap.add_argument('--allow', action='append', default=[],
                    help='IOCTL:KIND, a finding the interface keeps on purpose')
    args = ap.parse_args()
    allowed = set(args.allow)
    args.arch = [a.lstrip('-') for a in args.arch.split(',') if a]
    if not args.arch or any(a not in ARCHES for a in args.arch):
        print('uapi-lint: --arch takes %s, comma-separated' % ', '.join(ARCHES),
              file=sys.stderr)
        return 2
    args.includes = {'': args.I}
    for ai in args.arch_include:
        a, _, d = ai.partition('=')
        if a not in ARCHES or not d:
            print('uapi-lint: --arch-include takes ARCH=DIR', file=sys.stderr)
            return 2
        args.includes.setdefault(a, []).append(d)
    headers = list(headers_of(args.paths))
    if args.jobs > 1 and len(headers) > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.starmap(lint_header, [(h, args) for h in headers],
                                   chunksize=4)
    else:
        results = [lint_header(h, args) for h in headers]
    for r in results:
        for e in r['ioctls']:
            e['findings'] = [f for f in e['findings']
                             if '%s:%s' % (e['ioctl'], f[0]) not in allowed]
    found = 0
    if args.json:
        json.dump(results, sys.stdout, indent=1, default=str)
        print()
    for r in results:
        if not r['compiles']:
            if args.tsv:
                print('%s\t-\t-\t-\t-\tdoes-not-compile\t%s\t-'
                      % (r['header'], ' '.join(r.get('error') or [])))
            elif not args.json:
                print('%s: does not compile alone: %s'
                      % (r['header'], ' '.join(r.get('error') or [])))
            continue
        for e in r['ioctls']:
            found += len(e['findings'])
            sizes = '/'.join(str(e['sizes'].get(a, '-')) for a in args.arch)
            facts = 'flags=%s reserved=%s size_vers=%s' % (
                e['flags'] or '-', ','.join(e['reserved']) or '-',
                ','.join(e['size_vers']) or '-')
            if e.get('undefined'):
                facts = 'the header does not define it: %s' % e['undefined']
            if args.tsv:
                rows = e['findings'] or [('undefined' if e.get('undefined') else 'ok', '-')]
                for kind, detail in rows:
                    print('\t'.join([r['header'], e['ioctl'], e['dir'],
                                     e['payload'] or '-', sizes, kind, detail,
                                     facts]))
            elif not args.json and not (args.quiet and not e['findings']):
                print('%s %s (%s, %s, %s bytes): %s' % (
                    os.path.basename(r['header']), e['ioctl'], e['dir'],
                    e['payload'] or 'no payload', sizes,
                    '; '.join('%s: %s' % f for f in e['findings']) or 'ok'))
                if e['payload'] and not args.quiet:
                    print('    %s' % facts)
    return 1 if args.check and found else 0


if __name__ == '__main__':
    sys.exit(main())
