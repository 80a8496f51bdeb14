#!/usr/bin/env python3
"""The example DUT's decoders against meshconform's golden vectors (Vectors/): every valid
vector decodes, every invalid one is refused with its error code. Vectors marked acceptable
(the page allows either) are skipped. Exit 1 on any mismatch.

The codecs were written from the dialect pages, the vectors come from independent generators,
so agreement here is evidence that both read the pages the same way."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bitchat  # noqa: E402
import blemesh  # noqa: E402

VECTORS = os.path.join(HERE, "..", "..", "Vectors")


def bitchat_packet(data: bytes):
    packet = bitchat.decode(data)
    if bitchat.pad_length(data, packet.end) is None:
        raise bitchat.Refused("trailingBytes")


def bitchat_fragment(data: bytes):
    if bitchat.decode_fragment(data) is None:
        raise bitchat.Refused("truncated" if len(data) < 13 else "chunkIndexOutOfRange")


FORMATS = {
    "bitchat.packet": bitchat_packet, "bitchat.fragment": bitchat_fragment,
    "blemesh.chunk": blemesh.decode_chunk, "blemesh.envelope": blemesh.decode_envelope,
    "blemesh.control": blemesh.decode_control,
}
for kind in ("ack", "announce", "read", "rerr", "rrep", "rreq"):
    FORMATS[f"blemesh.{kind}"] = lambda data, kind=kind: blemesh.decode_inner(kind.upper(), data)

mismatches = total = 0
for fmt, decode in FORMATS.items():
    with open(os.path.join(VECTORS, f"{fmt}.json")) as f:
        tests = json.load(f)["tests"]
    for test in tests:
        if test["result"] == "acceptable":
            continue
        total += 1
        try:
            decode(bytes.fromhex(test["hex"]))
            got = "valid"
        except (bitchat.Refused, blemesh.Refused) as refusal:
            got = str(refusal)
        want = "valid" if test["result"] == "valid" else test["error"]
        if got != want:
            mismatches += 1
            print(f"{fmt} tcId {test['tcId']} ({test.get('comment', '')}): expected {want}, got {got}")
print(f"{total} vectors of {len(FORMATS)} formats, {mismatches} mismatches")
sys.exit(1 if mismatches else 0)
