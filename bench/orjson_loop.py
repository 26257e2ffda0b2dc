#!/usr/bin/env python3
"""The baseline of bench/native.sh: `orjson.loads` on every line of FILE (a parse-only loop,
the fastest a user could write in Python). Usage: python3 bench/orjson_loop.py FILE"""
import sys

import orjson

loads = orjson.loads
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            loads(line)
            n += 1
print(n)
