#!/usr/bin/env python3
"""Put a strict Content-Security-Policy into the built index.html (run by scripts/post_build.py).

The page is static (GitHub Pages), so no per-request nonce is possible; trunk's inline module
script is allowed by its sha256 hash instead. connect-src 'self' keeps every request on the
page's own origin; 'wasm-unsafe-eval' is what WebAssembly compilation needs, nothing more.
"""
import base64
import hashlib
import os
import re
import sys

MARK = "<!-- TRAJSCOPE-CSP: replaced at build time by scripts/csp.py with hashes of the inline scripts -->"


def main(staging: str) -> int:
    path = os.path.join(staging, "index.html")
    html = open(path, encoding="utf-8").read()
    hashes = []
    for m in re.finditer(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, re.S):
        digest = hashlib.sha256(m.group(1).encode("utf-8")).digest()
        hashes.append("'sha256-%s'" % base64.b64encode(digest).decode())
    policy = "; ".join([
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval' " + " ".join(hashes),
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "img-src 'self' data: blob:",
        "style-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'none'",
    ])
    meta = '<meta http-equiv="Content-Security-Policy" content="%s" />' % policy
    if MARK not in html:
        print("csp.py: marker not found in index.html", file=sys.stderr)
        return 1
    html = html.replace(MARK, meta)
    open(path, "w", encoding="utf-8").write(html)
    return 0


if __name__ == "__main__":
    sys.exit(main(os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")))
