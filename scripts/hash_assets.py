#!/usr/bin/env python3
"""Write the ingest worker's script, named after its content, and name it in the page.

The page and the worker run one wasm module (one copy of the core, downloaded and compiled
once): trunk builds only the app, and names its wasm and JS after their content. The worker is
a module worker whose script imports the app's wasm-bindgen JS and instantiates the compiled
`WebAssembly.Module` the page posts as its first message (or, failing that, fetches the app's
wasm itself); the module's `main` finds no window there and runs the worker.

This writes that script as `worker-<hash>.js` (the first 16 hex digits of the SHA-256 of its
bytes, which name the app's hashed files, so a new build gives a new name) and puts its name
into the page's `<meta name="trajscope-worker">`, which the app reads to start the worker. Run
from scripts/post_build.py on trunk's staging folder.
"""
import hashlib
import os
import re
import sys

META = re.compile(r'(<meta name="trajscope-worker" content=")[^"]*(")')

# The worker's whole script. `{js}` and `{wasm}` are the app's hashed file names.
WORKER = """\
// The trajscope ingest worker: the page's own wasm module, whose main() runs the worker when it
// finds no window. Written by scripts/hash_assets.py at build time.
import init from "./{js}";

addEventListener("message", (e) => {{
  const module = e.data && e.data.wasm_module;
  init({{ module_or_path: module instanceof WebAssembly.Module ? module : new URL("./{wasm}", import.meta.url) }});
}}, {{ once: true }});
"""


def app_files(staging: str, html: str) -> tuple[str, str]:
    """The app's wasm-bindgen JS and wasm, as trunk named them (exactly one of each, named in
    the page)."""
    names = os.listdir(staging)
    js = [n for n in names if re.fullmatch(r"app-[0-9a-f]+\.js", n)]
    wasm = [n for n in names if re.fullmatch(r"app-[0-9a-f]+_bg\.wasm", n)]
    if len(js) != 1 or len(wasm) != 1:
        raise SystemExit(f"hash_assets.py: expected one app JS and one app wasm, found {js} {wasm}")
    for n in js + wasm:
        if n not in html:
            raise SystemExit(f"hash_assets.py: index.html does not name {n}")
    return js[0], wasm[0]


def write_worker(staging: str, js: str, wasm: str) -> str:
    """Writes the worker script into `staging`; returns its name."""
    text = WORKER.format(js=js, wasm=wasm).encode("utf-8")
    name = f"worker-{hashlib.sha256(text).hexdigest()[:16]}.js"
    with open(os.path.join(staging, name), "wb") as f:
        f.write(text)
    return name


def main(staging: str) -> int:
    index = os.path.join(staging, "index.html")
    html = open(index, encoding="utf-8").read()
    worker = write_worker(staging, *app_files(staging, html))
    html, n = META.subn(lambda m: m.group(1) + worker + m.group(2), html)
    if n != 1:
        print("hash_assets.py: <meta name=\"trajscope-worker\"> not found in index.html", file=sys.stderr)
        return 1
    with open(index, "w", encoding="utf-8") as f:
        f.write(html)
    return 0


if __name__ == "__main__":
    sys.exit(main(os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")))
