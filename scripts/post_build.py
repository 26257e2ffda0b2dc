#!/usr/bin/env python3
"""Trunk's one post-build hook, run on its staging folder: give the wasm's imports short names
(scripts/short_imports.py, which renames the app's wasm and JS), write the content-hashed worker
script, then write the Content-Security-Policy. One hook, because trunk runs the hooks of a stage
concurrently and each step must see what the one before it wrote."""
import os
import sys

import csp
import hash_assets
import short_imports


def main() -> int:
    staging = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
    return short_imports.main(staging) or hash_assets.main(staging) or csp.main(staging)


if __name__ == "__main__":
    sys.exit(main())
