#!/usr/bin/env python3
"""Golden vectors of the simple dialect (seed 000, the mesh chat story's SimpleMessage).

Writes Vectors/simple.message.json. JSON text by common.fjson (Foundation's JSONEncoder,
byte for byte); no randomness, no clock.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import A, I, Obj, Raw, REF_2025_05_03, V, fjson, write_file  # noqa: E402

SOURCE = ("Valid bytes built by Vectors/generators/simple.py; JSON text written by generators/common.py, which "
          "emulates Foundation's JSONEncoder byte for byte (sorted keys for canonical vectors, declaration order for "
          "what the seed's plain JSONEncoder writes; Date as seconds since 2001-01-01, the default), independent of "
          "meshconform's Swift codecs. Fields and types from seed 000 (the mesh chat story), chapter 4 "
          "'The Message Structure - Enhanced SimpleMessage': id, sender, content, timestamp: Date, ttl: UInt8, "
          "relayCount: Int, isRelayed: Bool, originalSender: String, lastRelay: String?")

ORDER = ["id", "sender", "content", "timestamp", "ttl", "relayCount", "isRelayed", "originalSender", "lastRelay"]


def msg(**over):
    m = {"id": "EMRG-001", "sender": "Worker A", "content": "Emergency in Section 5", "timestamp": REF_2025_05_03,
         "ttl": 5, "relayCount": 0, "isRelayed": False, "originalSender": "Worker A"}
    m.update(over)
    return {k: v for k, v in m.items() if v is not None}


def declared(m):
    """The app's plain JSONEncoder: members in declaration order."""
    return Obj(*[(k, m[k]) for k in ORDER if k in m])


def simple_message():
    notes = {
        "Relayed": "A relayed copy: ttl one less, relayCount + 1, isRelayed true, lastRelay set, originalSender kept",
        "KeyOrder": "Members in declaration order, as the app's JSONEncoder without .sortedKeys writes them (not canonical)",
        "Null": "An optional member written as null: same as absent",
        "UnknownKey": "A member the message does not define: ignored, dropped on re-encoding",
        "TTL": "ttl at or beyond the edges of UInt8",
        "Escapes": "Strings needing JSON escapes (\\/ as Foundation writes it, quotes, non-ASCII)",
        "Size": "Around the 512-byte single-write limit",
        "Type": "A member of the wrong JSON kind",
        "Missing": "A required member absent",
        "Malformed": "Not JSON, or JSON cut short",
        "Duplicate": "The same member twice",
        "Count": "relayCount beyond what the field can mean",
    }
    t = []
    orig = msg()
    t.append(V("original transmission, ttl 5, no lastRelay (canonical: sorted keys)", fjson(orig), orig))
    relayed = msg(ttl=4, relayCount=1, isRelayed=True, lastRelay="Worker B")
    t.append(V("relayed once by Worker B", fjson(relayed), relayed, flags=["Relayed"]))
    twice = msg(ttl=3, relayCount=2, isRelayed=True, lastRelay="Worker E", sender="Worker A")
    t.append(V("relayed twice, last by Worker E", fjson(twice), twice, flags=["Relayed"]))
    t.append(V("declaration order, as the app writes it", fjson(declared(orig), sort=False), orig, canonical=False,
               flags=["KeyOrder"]))
    t.append(V("lastRelay null", fjson(Obj(*sorted(list(orig.items()) + [("lastRelay", None)]))), orig, canonical=False,
               flags=["Null"]))
    t.append(V("unknown member hopCount ignored", fjson(dict(orig, hopCount=2)), orig, canonical=False, flags=["UnknownKey"]))
    for ttl in (0, 255):
        m = msg(ttl=ttl)
        t.append(V("ttl %d" % ttl, fjson(m), m, flags=["TTL"]))
    esc = msg(content='path a/b "quoted" \u00e9\u6f22 \U0001F600', sender="W/A")
    t.append(V("slash, quotes and non-ASCII in strings", fjson(esc), esc, flags=["Escapes"]))
    frac = msg(timestamp=767923200.125, content="")
    t.append(V("fractional timestamp, empty content", fjson(frac), frac))
    big = msg(relayCount=2 ** 63 - 1)
    t.append(V("relayCount Int.max", fjson(big), big, flags=["Count"]))
    filler = msg()
    base = len(fjson(filler))
    at_limit = msg(content="x" * (len(filler["content"]) + 512 - base))
    assert len(fjson(at_limit)) == 512
    t.append(V("exactly 512 bytes", fjson(at_limit), at_limit, flags=["Size"]))
    over = msg(content="x" * (len(filler["content"]) + 513 - base))
    t.append(I("513 bytes", fjson(over), "tooLarge", flags=["Size"]))
    t.append(I("empty input", b"", "truncated", flags=["Malformed"]))
    t.append(I("cut in the middle", fjson(orig)[:40], "truncated", flags=["Malformed"]))
    t.append(I("not JSON", b"EMRG-001|Worker A|hello", "badJSON", flags=["Malformed"]))
    t.append(I("ttl 256", fjson(msg(ttl=256)), "ttlOutOfRange", flags=["TTL"]))
    t.append(I("ttl -1", fjson(msg(ttl=-1)), "ttlOutOfRange", flags=["TTL"]))
    t.append(I("originalSender missing", fjson({k: v for k, v in orig.items() if k != "originalSender"}), "missingField",
               flags=["Missing"]))
    t.append(I("isRelayed as the string \"true\"", fjson(msg(isRelayed="true")), "wrongType", flags=["Type"]))
    t.append(I("timestamp as an ISO-8601 string (the default encoding is a number)",
               fjson(msg(timestamp="2025-05-03T00:00:00Z")), "wrongType", flags=["Type"]))
    t.append(I("relayCount 1.5", fjson(msg(relayCount=Raw("1.5"))), "wrongType", flags=["Type", "Count"]))
    t.append(I("id twice", fjson(Obj(*(sorted(orig.items()) + [("id", "OTHER")]))), "duplicateKey", flags=["Duplicate"]))
    t.append(I("the top level is an array", fjson([orig]), "wrongType", flags=["Type"]))
    t.append(A("relayCount -1 (Foundation decodes it into Int; meshconform refuses)", fjson(msg(relayCount=-1)),
               error="valueOutOfRange", flags=["Count"]))
    write_file("simple.message", "simple", SOURCE, notes, t)


def main():
    simple_message()


if __name__ == "__main__":
    main()
