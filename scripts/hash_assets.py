#!/usr/bin/env python3
"""Content-hash the ingest worker's files, which trunk leaves with fixed names.

Trunk names the page's wasm, JS, CSS and icon after their content, but not a worker's
(`worker.js`, `worker_bg.wasm`, `worker_loader.js`), so a deploy could serve a cached old worker
beside a new page. This renames each to `worker-<hash>…` (the first 16 hex digits of the SHA-256
of its final bytes), points the loader at the new names (so the loader's own hash covers them),
and writes the loader's name into the page's `<meta name="trajscope-worker">`, which the app
reads to start the worker. Run from scripts/post_build.py on trunk's staging folder.
"""
import hashlib
import os
import re
import sys

META = re.compile(r'(<meta name="trajscope-worker" content=")[^"]*(")')


def content_name(folder: str, name: str, stem: str, suffix: str) -> str:
    """Renames folder/name to `<stem>-<hash><suffix>` and returns the new name."""
    path = os.path.join(folder, name)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    new = f"{stem}-{digest}{suffix}"
    os.replace(path, os.path.join(folder, new))
    return new


def hash_worker(staging: str, stem: str = "worker") -> str:
    """Hashes the worker `stem` in `staging`; returns the loader's new name."""
    loader = os.path.join(staging, f"{stem}_loader.js")
    text = open(loader, encoding="utf-8").read()
    wasm = content_name(staging, f"{stem}_bg.wasm", stem, "_bg.wasm")
    js = content_name(staging, f"{stem}.js", stem, ".js")
    replaced = text.replace(f"./{stem}_bg.wasm", f"./{wasm}").replace(f"./{stem}.js", f"./{js}")
    if wasm not in replaced or js not in replaced:
        raise SystemExit(f"hash_assets.py: unexpected loader shim: {text!r}")
    with open(loader, "w", encoding="utf-8") as f:
        f.write(replaced)
    return content_name(staging, f"{stem}_loader.js", stem, "_loader.js")


def main(staging: str) -> int:
    loader = hash_worker(staging)
    index = os.path.join(staging, "index.html")
    html = open(index, encoding="utf-8").read()
    html, n = META.subn(lambda m: m.group(1) + loader + m.group(2), html)
    if n != 1:
        print("hash_assets.py: <meta name=\"trajscope-worker\"> not found in index.html", file=sys.stderr)
        return 1
    with open(index, "w", encoding="utf-8") as f:
        f.write(html)
    return 0


if __name__ == "__main__":
    sys.exit(main(os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")))
