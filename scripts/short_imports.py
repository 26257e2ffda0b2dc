#!/usr/bin/env python3
"""Give the app's wasm imports short names, in the wasm and in its wasm-bindgen JS alike.

wasm-bindgen names each function the wasm imports from its JS glue after the JS API it wraps
and a 64-bit hash (`__wbg_setAttribute_2ee3c5c6d4c5a1b2`): about 210 names, 7 KB in the wasm's
import section, 3.4 KB of it left after gzip (the hashes do not compress). Each name is a key of
the one imports object of the glue (`import0`, under the module name `./app_bg.js`) and nothing
else refers to it, so both files can name it `$0`, `$1`, ... instead: the same module, about
4 KB smaller to download (docs/performance.md, Bundle). The same for the wasm's exports that
are closures' entry points, named after their Rust types (`wasm_bindgen_<hash>___convert__
closures_____invoke___...`, up to 300 bytes each): `$x0`, `$x1`, ... in the wasm and wherever
the glue names them.

Run from scripts/post_build.py on trunk's staging folder, before the worker script is written:
the two files get new content-hashed names, and the page's links, its loader script and their
`integrity` hashes are rewritten to match. It checks what it relies on (every import a
function or value of the one module, each name found exactly once in the glue, as a key) and
stops the build otherwise, so a wasm-bindgen whose glue is laid out differently fails loudly
instead of shipping a page that cannot load.
"""
import base64
import hashlib
import os
import re
import sys

from wasm_sizes import leb  # an unsigned LEB128 at `i`: its value and the index after it

MODULE = "./app_bg.js"
SHORT_MODULE = "a"
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"


def fail(why: str) -> "NoReturn":  # noqa: F821
    raise SystemExit(f"short_imports.py: {why}")


def enc(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def name(data: bytes, i: int) -> tuple[str, int]:
    n, i = leb(data, i)
    return data[i : i + n].decode("utf-8"), i + n


def limits(data: bytes, i: int) -> int:
    flags = data[i]
    _, i = leb(data, i + 1)
    if flags & 1:
        _, i = leb(data, i)
    return i


def short(k: int) -> str:
    """`$0` ... `$_`, `$10` ...: no wasm-bindgen name starts with `$`."""
    digits = ""
    while True:
        digits = ALPHABET[k % len(ALPHABET)] + digits
        k //= len(ALPHABET)
        if not k:
            return "$" + digits


def rename_exports(wasm: bytes, start: int, end: int, exported: dict[str, str]) -> bytes:
    """The export section with the closures' entry points (`wasm_bindgen_<hash>___convert__
    closures_____invoke___<their Rust types>`, up to 300 bytes each) named `$x0`, `$x1`, ...;
    the glue calls each as `wasm.NAME` and wraps it in a function of the same name."""
    count, j = leb(wasm, start)
    section = bytearray(enc(count))
    for _ in range(count):
        field, j = name(wasm, j)
        kind, j = wasm[j], j + 1
        _, after = leb(wasm, j)
        if field.startswith("wasm_bindgen_"):
            exported[field] = f"$x{len(exported)}"
            field = exported[field]
        section += enc(len(field.encode("utf-8"))) + field.encode("utf-8") + bytes([kind])
        section += wasm[j:after]
        j = after
    if j != end:
        fail("the export section is longer than its entries")
    return bytes([7]) + enc(len(section)) + bytes(section)


def rename_imports(wasm: bytes) -> tuple[bytes, dict[str, str], dict[str, str]]:
    """The module with its imports' module name `a` and field names short, and its closures'
    exports short; the old names of each."""
    if wasm[:8] != b"\0asm\x01\0\0\0":
        fail("the app's wasm is not a version-1 module")
    out, renamed, exported = bytearray(wasm[:8]), {}, {}
    i = 8
    while i < len(wasm):
        sid = wasm[i]
        size, start = leb(wasm, i + 1)
        end = start + size
        if sid == 7:
            out += rename_exports(wasm, start, end, exported)
            i = end
            continue
        if sid != 2:
            out += wasm[i:end]
            i = end
            continue
        count, j = leb(wasm, start)
        section = bytearray(enc(count))
        for k in range(count):
            module, j = name(wasm, j)
            field, j = name(wasm, j)
            kind, desc = wasm[j], j + 1
            if kind == 0:  # a function: its type index
                _, j = leb(wasm, desc)
            elif kind == 1:  # a table: its element type, then its limits
                j = limits(wasm, desc + 1)
            elif kind == 2:  # a memory: its limits
                j = limits(wasm, desc)
            elif kind == 3:  # a global: its value type and mutability
                j = desc + 2
            else:
                fail(f"import {module}.{field} is of kind {kind}, which this script does not know")
            if module != MODULE:
                fail(f"import {module}.{field} is not from {MODULE}")
            if field in renamed:
                fail(f"import {field} appears twice")
            renamed[field] = short(k)
            for text in (SHORT_MODULE, renamed[field]):
                section += enc(len(text)) + text.encode("utf-8")
            section += wasm[desc - 1 : j]
        if j != end:
            fail("the import section is longer than its entries")
        out += bytes([2]) + enc(len(section)) + section
        i = end
    if not renamed:
        fail("the app's wasm imports nothing: not a wasm-bindgen module?")
    return bytes(out), renamed, exported


def rename_glue(js: str, renamed: dict[str, str], exported: dict[str, str]) -> str:
    """The glue with each import's key and the module's name replaced, each import there once,
    as a key (`NAME:`), and nowhere else; and each renamed export wherever it is named (the
    glue calls it as `wasm.NAME`, at least once)."""
    for old, new in exported.items():
        if f"wasm.{old}(" not in js:
            fail(f"the glue does not call the export {old[:60]}...")
        js = re.sub(r"(?<![\w$])" + re.escape(old) + r"(?![\w$])", lambda _: new, js)
    key = re.compile(r"(?<![\w$])(__wbg_[\w$]+|__wbindgen_[\w$]+)(?![\w$])")
    seen: dict[str, int] = {}

    def sub(m: re.Match) -> str:
        old = m.group(1)
        if old not in renamed:
            return old  # an export (`wasm.__wbindgen_malloc`) or a glue function: kept
        seen[old] = seen.get(old, 0) + 1
        if not js.startswith(":", m.end()):
            fail(f"{old} is in the glue other than as the imports object's key")
        return renamed[old]

    out = key.sub(sub, js)
    missing = [n for n in renamed if seen.get(n) != 1]
    if missing:
        fail(f"{len(missing)} imports are not keys of the glue exactly once, e.g. {missing[:3]}")
    module_key = f'"{MODULE}": import0'
    if out.count(module_key) != 1:
        fail(f"the glue does not give its imports as {module_key!r} once")
    return out.replace(module_key, f'"{SHORT_MODULE}": import0')


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode("ascii")


def main(staging: str) -> int:
    index = os.path.join(staging, "index.html")
    html = open(index, encoding="utf-8").read()
    js_name = [n for n in os.listdir(staging) if re.fullmatch(r"app-[0-9a-f]+\.js", n)]
    wasm_name = [n for n in os.listdir(staging) if re.fullmatch(r"app-[0-9a-f]+_bg\.wasm", n)]
    if len(js_name) != 1 or len(wasm_name) != 1:
        fail(f"expected one app JS and one app wasm, found {js_name} {wasm_name}")
    js_name, wasm_name = js_name[0], wasm_name[0]
    wasm_path, js_path = os.path.join(staging, wasm_name), os.path.join(staging, js_name)
    wasm, renamed, exported = rename_imports(open(wasm_path, "rb").read())
    js = rename_glue(open(js_path, encoding="utf-8").read(), renamed, exported).encode("utf-8")
    names = {}
    for old, data, suffix in ((wasm_name, wasm, "_bg.wasm"), (js_name, js, ".js")):
        new = f"app-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
        # The file's link and its integrity hash, then every other mention (the loader script).
        link = re.compile(r'(href="[^"]*' + re.escape(old) + r'"[^>]*integrity=")[^"]*(")')
        html, n = link.subn(lambda m: m.group(1) + sri(data) + m.group(2), html)
        if n != 1:
            fail(f"index.html links {old} {n} times with an integrity hash, not once")
        html = html.replace(old, new)
        os.remove(os.path.join(staging, old))
        with open(os.path.join(staging, new), "wb") as f:
            f.write(data)
        names[old] = new
    with open(index, "w", encoding="utf-8") as f:
        f.write(html)
    print(f"short_imports.py: {len(renamed)} imports, {len(exported)} exports renamed; {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "dist"))
