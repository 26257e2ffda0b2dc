#!/usr/bin/env python3
"""Size profile of a wasm module from its name section (docs/performance.md, Bundle).

    python3 scripts/wasm_sizes.py target/wasm-bindgen/release/app_bg.wasm \
        [--top N] [--width W] [--group]

Prints each section's size (raw and `gzip -9` alone), then the code bytes of the biggest
functions by their demangled-ish name, or (--group) summed by the first path segment of each
name (impls counted with their type's crate: `<serde_json::de::X as ...>` is serde_json).
--width: how many characters of each name are shown (160).
Needs the name section: the wasm-bindgen output before wasm-opt keeps it.
"""
import gzip
import re
import sys
from collections import Counter


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def sections(b):
    i = 8
    while i < len(b):
        sid = b[i]
        size, j = leb(b, i + 1)
        yield sid, b[j:j + size]
        i = j + size


def names(payload):
    """Function index -> name, from the `name` custom section."""
    n, i = leb(payload, 0)
    i += n  # skip the section name
    out = {}
    while i < len(payload):
        kind = payload[i]
        size, i = leb(payload, i + 1)
        sub = payload[i:i + size]
        i += size
        if kind != 1:
            continue
        count, k = leb(sub, 0)
        for _ in range(count):
            idx, k = leb(sub, k)
            ln, k = leb(sub, k)
            out[idx] = sub[k:k + ln].decode('utf-8', 'replace')
            k += ln
    return out


def imported_functions(payload):
    count, i = leb(payload, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):
            ln, i = leb(payload, i)
            i += ln
        kind = payload[i]
        i += 1
        if kind == 0:
            _, i = leb(payload, i)
            funcs += 1
        elif kind == 1:
            i += 1
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 2:
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 3:
            i += 2
        elif kind == 4:
            i += 1
            _, i = leb(payload, i)
    return funcs


def crate_of(name):
    if name.startswith('_R'):  # v0 mangling, not demangled: the first crate root named
        m = re.search(r'C(?:s[0-9a-zA-Z]*_)?(\d+)', name)
        if m:
            n = int(m.group(1))
            return name[m.end():m.end() + n]
    name = re.sub(r'::h[0-9a-f]{16}$', '', name)
    while name.startswith('<'):
        name = name[1:]
    name = name.lstrip('&* ').removeprefix('mut ').removeprefix('dyn ')
    return re.sub(r'\[[0-9a-f]+\]$', '', re.split(r'::|<| ', name, maxsplit=1)[0] or name)


def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index('--top') + 1]) if '--top' in sys.argv else 40
    width = int(sys.argv[sys.argv.index('--width') + 1]) if '--width' in sys.argv else 160
    b = open(path, 'rb').read()
    ids = {0: 'custom', 1: 'type', 2: 'import', 3: 'function', 5: 'memory', 6: 'global',
           7: 'export', 9: 'elem', 10: 'code', 11: 'data', 12: 'datacount'}
    nfun_imports = 0
    fnames = {}
    bodies = []
    for sid, p in sections(b):
        label = ids.get(sid, str(sid))
        if sid == 0:
            ln, k = leb(p, 0)
            label = 'custom ' + p[k:k + ln].decode()
            if label == 'custom name':
                fnames = names(p)
        print(f'{label:28} {len(p):>10,} raw {len(gzip.compress(p, 9)):>10,} gzip')
        if sid == 2:
            nfun_imports = imported_functions(p)
        if sid == 10:
            count, i = leb(p, 0)
            for _ in range(count):
                size, j = leb(p, i)
                bodies.append(size + (j - i))
                i = j + size
    sized = [(s, fnames.get(nfun_imports + k, f'func[{nfun_imports + k}]'))
             for k, s in enumerate(bodies)]
    if '--group' in sys.argv:
        by = Counter()
        for s, n in sized:
            by[crate_of(n)] += s
        for c, s in by.most_common(top):
            print(f'{s:>10,} {c}')
    else:
        for s, n in sorted(sized, reverse=True)[:top]:
            print(f'{s:>10,} {n[:width]}')
    print(f'{sum(bodies):>10,} code bytes in {len(bodies)} functions')


if __name__ == '__main__':
    main()
