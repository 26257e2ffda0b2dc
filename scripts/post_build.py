#!/usr/bin/env python3
"""Trunk's one post-build hook, run on its staging folder: write the content-hashed worker script,
then write the Content-Security-Policy. One hook, because trunk runs the hooks of a stage
concurrently and the CSP must see the final page."""
import os
import sys

import csp
import hash_assets


def main() -> int:
    staging = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
    return hash_assets.main(staging) or csp.main(staging)


if __name__ == "__main__":
    sys.exit(main())
