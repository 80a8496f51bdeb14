#!/usr/bin/env python3
"""Regenerates every Vectors/*.json file (see README.md)."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import blemesh  # noqa: E402
import common  # noqa: E402
import relay  # noqa: E402
import peat  # noqa: E402
import camp  # noqa: E402
import bitchat  # noqa: E402
import simple  # noqa: E402

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", help="write the files here instead of Vectors/ (CI compares the two)")
    args = parser.parse_args()
    if args.out:
        common.OUT_DIR = os.path.abspath(args.out)
    relay.main()
    blemesh.main()
    peat.main()
    camp.main()
    bitchat.main()
    simple.main()
