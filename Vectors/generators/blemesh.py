#!/usr/bin/env python3
"""Golden vectors of the blemesh dialect (BLEMesh, UpwanSingh/BLEMesh).

Writes Vectors/blemesh.chunk.json, blemesh.envelope.json, blemesh.control.json and the six inner
control formats blemesh.rreq/.rrep/.rerr/.announce/.ack/.read. Deterministic: fixed UUIDs and
timestamps, no randomness, no clock.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (A, I, ISO_2025_05_03, Obj, REF_2025_05_03, Raw, V, b64, fjson, hexs,  # noqa: E402
                    write_file)

APP = "UpwanSingh/BLEMesh"
F_CHUNK = "BLEMesh/Models/Message.swift (struct MessageChunk, MessageFlags, ChunkCreator, ChunkAssembler)"
F_ENV = "BLEMesh/Models/Routing/MessageEnvelope.swift (struct MessageEnvelope, serialize/deserialize with .iso8601)"
F_CTRL = "BLEMesh/Models/Routing/RouteMessages.swift (ControlMessageType, ControlMessage, inner structs)"
F_SEND = ("BLEMesh/Services/MessageRelayService.swift (sendAck, chunked) and "
          "BLEMesh/Services/RoutingService.swift (ANNOUNCE/RREQ/RREP/RERR written unchunked)")

INDEPENDENT = ("Valid bytes built by Vectors/generators/blemesh.py with the JSON text writer of "
               "generators/common.py (emulating Foundation's JSONEncoder with .sortedKeys byte for byte, checked "
               "against swift-foundation, Swift 6.3) and Python's base64, independent of the Swift codecs. "
               "Cross-checked with generators/foundation_check.swift: every valid vector decodes with Foundation's "
               "JSONDecoder into structs mirroring the app's Codable types, and re-encoding with JSONEncoder "
               "(.sortedKeys) gives the canonical vectors' bytes exactly (swift-foundation, Swift 6.3). Types from %s: " % APP)

# Fixed identities (RFC 4122 v4 shaped constants; the app uses UUID()).
DEV_A = "6F1B3C2A-8D4E-4F60-9A7B-1C2D3E4F5A6B"   # Alice's device
DEV_B = "0C9A8B7D-2E1F-4A3B-8C5D-6E7F8091A2B3"   # Bob's device
DEV_C = "D4E5F607-1829-4A3B-BC4D-5E6F708192A3"   # Carol's device (a relay)
MSG_1 = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"   # a user message envelope id
MSG_2 = "3B241101-E2BB-4255-8CAF-4136C566A962"   # a control envelope id
REQ_1 = "9F8E7D6C-5B4A-4938-A726-150F0E0D0C0B"   # a route request id
ERR_1 = "1A2B3C4D-5E6F-4071-8293-A4B5C6D7E8F9"   # a route error id
CONV = "C0FFEE00-1234-4567-89AB-CDEF01234567"    # a conversation id
U64_MAX = 2 ** 64 - 1
TS_FRAC = 767923200.123


# ---------------------------------------------------------------- inner control messages


def rreq(**kw):
    d = {"requestID": REQ_1, "originID": DEV_A, "destinationID": DEV_B, "originName": "Alice",
         "hopCount": 0, "hopPath": [DEV_A], "timestamp": REF_2025_05_03, "ttl": 3}
    d.update(kw)
    return d


def rrep(**kw):
    d = {"requestID": REQ_1, "originID": DEV_A, "destinationID": DEV_B, "destinationName": "Bob",
         "hopCount": 1, "hopPath": [DEV_B, DEV_C, DEV_A], "timestamp": REF_2025_05_03}
    d.update(kw)
    return d


def rerr(**kw):
    d = {"errorID": ERR_1, "unreachableID": DEV_B, "reporterID": DEV_C, "affectedDestinations": [DEV_B],
         "timestamp": REF_2025_05_03}
    d.update(kw)
    return d


def announce(**kw):
    d = {"deviceID": DEV_A, "deviceName": "Alice", "timestamp": REF_2025_05_03, "hopCount": 0}
    d.update(kw)
    return d


def dack(**kw):
    d = {"messageID": MSG_1, "receiverID": DEV_B, "timestamp": REF_2025_05_03}
    d.update(kw)
    return d


def read(**kw):
    d = {"messageID": MSG_1, "readerID": DEV_B, "originalSenderID": DEV_A, "timestamp": REF_2025_05_03}
    d.update(kw)
    return d


# format, control type, struct name, builder, field kinds (declaration order)
INNER = [
    ("blemesh.rreq", "RREQ", "RouteRequest", rreq,
     [("requestID", "uuid"), ("originID", "uuid"), ("destinationID", "uuid"), ("originName", "string"),
      ("hopCount", "hop"), ("hopPath", "uuids"), ("timestamp", "date"), ("ttl", "hop")]),
    ("blemesh.rrep", "RREP", "RouteReply", rrep,
     [("requestID", "uuid"), ("originID", "uuid"), ("destinationID", "uuid"), ("destinationName", "string"),
      ("hopCount", "hop"), ("hopPath", "uuids"), ("timestamp", "date")]),
    ("blemesh.rerr", "RERR", "RouteError", rerr,
     [("errorID", "uuid"), ("unreachableID", "uuid"), ("reporterID", "uuid"), ("affectedDestinations", "uuids"),
      ("timestamp", "date")]),
    ("blemesh.announce", "ANNOUNCE", "PeerAnnounce", announce,
     [("deviceID", "uuid"), ("deviceName", "string"), ("timestamp", "date"), ("hopCount", "hop")]),
    ("blemesh.ack", "ACK", "DeliveryAck", dack,
     [("messageID", "uuid"), ("receiverID", "uuid"), ("timestamp", "date")]),
    ("blemesh.read", "READ", "ReadReceipt", read,
     [("messageID", "uuid"), ("readerID", "uuid"), ("originalSenderID", "uuid"), ("timestamp", "date")]),
]


def inner_neutral(d):
    """Neutral form of an inner message: its own JSON, UUIDs uppercase, timestamp a number."""
    out = {}
    for k, v in d.items():
        if isinstance(v, str) and len(v) == 36 and v.count("-") == 4:
            v = v.upper()
        elif isinstance(v, list):
            v = [e.upper() for e in v]
        out[k] = v
    return out


INNER_NOTES = {
    "NonCanonical": "Valid but not the canonical bytes (sorted keys, uppercase UUIDs, integral Double "
                    "timestamps without '.0', no whitespace, no unknown keys); decoders must accept it.",
    "Timestamp": "Inner control messages use JSONEncoder's default date strategy: a Double of seconds since "
                 "2001-01-01T00:00:00Z (integral ones are written without '.0', e.g. 767923200 = "
                 "2025-05-03T00:00:00Z; Date() values have fractions, e.g. 767923200.123).",
    "IsoDateInner": "An ISO-8601 string in an inner message (the envelope's convention, not the inner one): "
                    "JSONDecoder with the default strategy expects a number (wrongType).",
    "Hop": "A hop count or TTL at or beyond 0...255. The app's fields are Int (Foundation accepts any Int); "
           "the dialect bounds them to 0...255 and a conforming decoder refuses the rest.",
    "Truncated": "Empty input or JSON cut mid-value.",
    "AppBug": "BLEMesh's decoder accepts it (its Codable types take any Int for hopCount and ttl: "
              "RouteMessages.swift:19, 22, 56, 106@dcd2103c); a conforming decoder refuses it (BLEMESH-W4, "
              "blemesh.md section 6 row 17).",
    "DuplicateKey": "A key given twice: Foundation's JSONDecoder takes the first value, meshconform refuses.",
    "OverflowUnknownKey": "A number beyond a Double's range under a key the app's type does not have: Foundation's "
                          "JSONDecoder skips the key and decodes the message (swift-foundation, Swift 6.3.1; "
                          "Vectors/generators/foundation_check.swift shows it); JSONSerialization and meshconform refuse it.",
    "BadUUID": "A UUID that is not 8-4-4-4-12 hex.",
}


def inner_tests(fmt, struct_name, build, fields):
    t = []
    base = build()
    N = inner_neutral
    first_uuid = next(k for k, kind in fields if kind == "uuid")
    hops = [k for k, kind in fields if kind == "hop"]
    strings = [k for k, kind in fields if kind == "string"]
    arrays = [k for k, kind in fields if kind == "uuids"]
    last = fields[-1][0]

    t.append(V("canonical %s, timestamp 767923200 (2025-05-03T00:00:00Z, integral: no '.0')" % struct_name,
               fjson(base), N(base), flags=["Timestamp"]))
    frac = build(timestamp=TS_FRAC)
    t.append(V("timestamp 767923200.123, a fractional Date() value", fjson(frac), N(frac), flags=["Timestamp"]))
    if fjson(frac, sort=False) != fjson(frac):
        t.append(V("declaration order (what the app's plain JSONEncoder writes on swift-foundation)",
                   fjson(frac, sort=False), N(frac), canonical=False, flags=["NonCanonical"]))
    else:
        rev = dict(reversed(list(frac.items())))
        t.append(V("keys in reverse order (declaration order is already sorted for this struct)",
                   fjson(rev, sort=False), N(frac), canonical=False, flags=["NonCanonical"]))
    t.append(V("timestamp written 767923200.0", fjson(build(timestamp=Raw("767923200.0"))), N(base),
               canonical=False, flags=["NonCanonical", "Timestamp"]))
    t.append(V("timestamp written 7.679232e8", fjson(build(timestamp=Raw("7.679232e8"))), N(base),
               canonical=False, flags=["NonCanonical", "Timestamp"]))
    neg = build(timestamp=-978307200)
    t.append(V("timestamp -978307200 (1970-01-01, before the 2001 reference date)", fjson(neg), N(neg),
               flags=["Timestamp"]))
    t.append(V("lowercase %s" % first_uuid, fjson(build(**{first_uuid: base[first_uuid].lower()})), N(base),
               canonical=False, flags=["NonCanonical"]))
    t.append(V("unknown key \"version\" (dropped)", fjson(dict(base, version=2)), N(base), canonical=False,
               flags=["NonCanonical"]))
    for h in hops:
        m = build(**{h: 255})
        t.append(V("%s 255" % h, fjson(m), N(m), flags=["Hop"]))
    for s in strings:
        m = build(**{s: "Zoë's \"phone\" / 2\t\u0001"})
        t.append(V("%s with a quote, a slash (written \\/), a tab, a control byte and non-ASCII" % s,
                   fjson(m), N(m)))
    for a in arrays:
        m = build(**{a: []})
        t.append(V("%s empty" % a, fjson(m), N(m)))

    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("JSON without its closing brace", fjson(base)[:-1],
               "truncated", flags=["Truncated"]))
    t.append(I("not JSON", b"RREQ " + base[first_uuid].encode(), "badJSON"))
    t.append(I("a JSON array instead of an object", fjson(list(base.values())), "wrongType"))
    t.append(I("%s missing" % last, fjson({k: v for k, v in base.items() if k != last}), "missingField"))
    t.append(I("%s null" % first_uuid, fjson(build(**{first_uuid: None})), "wrongType"))
    t.append(I("%s not a UUID (one digit short)" % first_uuid, fjson(build(**{first_uuid: base[first_uuid][:-1]})),
               "badUUID", flags=["BadUUID"]))
    for a in arrays:
        t.append(I("%s[1] not a UUID" % a, fjson(build(**{a: [DEV_A, "DEV-C"]})), "badUUID", flags=["BadUUID"]))
        t.append(I("%s[0] a number" % a, fjson(build(**{a: [1]})), "wrongType"))
    t.append(I("timestamp as ISO-8601 text", fjson(build(timestamp=ISO_2025_05_03)), "wrongType",
               flags=["IsoDateInner"]))
    t.append(I("timestamp 1e400 (not a finite Double)", fjson(build(timestamp=Raw("1e400"))), "valueOutOfRange",
               flags=["Timestamp"]))
    t.append(I("timestamp true", fjson(build(timestamp=True)), "wrongType"))
    for h in hops:
        t.append(I("%s -1" % h, fjson(build(**{h: -1})), "ttlOutOfRange", flags=["Hop", "AppBug"]))
        t.append(I("%s 256" % h, fjson(build(**{h: 256})), "ttlOutOfRange", flags=["Hop", "AppBug"]))
        t.append(I("%s 1.5" % h, fjson(build(**{h: Raw("1.5")})), "wrongType", flags=["Hop"]))
    for s in strings:
        t.append(I("%s a number" % s, fjson(build(**{s: 7})), "wrongType"))
    pairs = sorted(base.items(), key=lambda kv: kv[0].encode())
    pairs.insert(0, (first_uuid, DEV_C))
    t.append(A("%s given twice (a different UUID first)" % first_uuid, fjson(Obj(*pairs)), error="duplicateKey",
               flags=["DuplicateKey"]))
    t.append(A("unknown key \"version\" holding 1e999: Foundation's JSONDecoder skips the key and takes the message, meshconform refuses",
               fjson(dict(base, version=Raw("1e999"))), error="valueOutOfRange", flags=["OverflowUnknownKey"]))
    return t


def write_inner():
    for fmt, ctype, struct_name, build, fields in INNER:
        t = inner_tests(fmt, struct_name, build, fields)
        notes = {k: v for k, v in INNER_NOTES.items() if any(k in x["flags"] for x in t)}
        decl = ", ".join("%s: %s" % (k, {"uuid": "UUID", "string": "String", "hop": "Int", "uuids": "[UUID]",
                                          "date": "Date"}[kind]) for k, kind in fields)
        src = (INDEPENDENT + F_CTRL + ": struct %s {%s}, encoded with a plain JSONEncoder() (default Date "
               "strategy: Double seconds since 2001-01-01) and carried base64 in ControlMessage(type: \"%s\")."
               % (struct_name, decl, ctype))
        write_file(fmt, "blemesh", src, notes, t)


# ---------------------------------------------------------------- control messages


def control(ctype, inner_bytes):
    return {"type": ctype, "payload": b64(inner_bytes)}


def control_tests():
    t = []
    for fmt, ctype, struct_name, build, fields in INNER:
        m = build(timestamp=TS_FRAC) if ctype in ("ACK", "READ") else build()
        t.append(V("%s carrying a canonical %s" % (ctype, struct_name), fjson(control(ctype, fjson(m))),
                   {"type": ctype, "message": inner_neutral(m)}))
    ann = announce()
    c_decl = fjson({"type": "ANNOUNCE", "payload": b64(fjson(ann, sort=False))}, sort=False)
    t.append(V("ANNOUNCE as the app writes it: type before payload, inner keys in declaration order",
               c_decl, {"type": "ANNOUNCE", "message": inner_neutral(ann)}, canonical=False,
               flags=["NonCanonical"]))
    # A payload whose base64 holds '/', written unescaped.
    m = rrep(destinationName="Bob???")
    enc = b64(fjson(m))
    assert "/" in enc
    t.append(V("RREP whose base64 payload has '/', written escaped \\/ as JSONEncoder does", fjson(control("RREP",
               fjson(m))), {"type": "RREP", "message": inner_neutral(m)}, flags=["Slash"]))
    t.append(V("the same with '/' unescaped", ('{"payload":"%s","type":"RREP"}' % enc).encode(),
               {"type": "RREP", "message": inner_neutral(m)}, canonical=False, flags=["NonCanonical", "Slash"]))
    t.append(V("unknown key \"version\" beside type and payload", fjson(dict(control("ACK", fjson(dack())), version=1)),
               {"type": "ACK", "message": inner_neutral(dack())}, canonical=False, flags=["NonCanonical"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    gkd = {"groupID": CONV, "groupName": "Team", "memberIDs": [DEV_A, DEV_B], "encryptedKey": b64(bytes(32)),
           "nonce": b64(bytes(12)), "tag": b64(bytes(16)), "senderID": DEV_A, "timestamp": REF_2025_05_03}
    t.append(I("GKD (GroupKeyDistribute), defined only in the older 471fcaea version", fjson(control("GKD", fjson(gkd))),
               "unknownType", flags=["GroupKeyDistribute"]))
    t.append(I("type \"ack\" in lowercase", fjson(control("ack", fjson(dack()))), "unknownType"))
    t.append(I("type missing", fjson({"payload": b64(fjson(dack()))}), "missingField"))
    t.append(I("payload missing", fjson({"type": "ACK"}), "missingField"))
    t.append(I("type a number", fjson({"type": 4, "payload": b64(fjson(dack()))}), "wrongType"))
    t.append(I("payload base64 with a '$' in it", fjson({"type": "ACK", "payload": b64(fjson(dack())).rstrip("=") + "$"}),
               "badBase64"))
    unp = b64(fjson(announce())).rstrip("=")
    assert len(unp) % 4 != 0
    t.append(I("payload base64 without its '=' padding", fjson({"type": "ANNOUNCE", "payload": unp}), "badBase64"))
    t.append(I("ACK whose inner messageID is not a UUID", fjson(control("ACK", fjson(dack(messageID="E621E1F8")))),
               "badUUID", flags=["InnerError"]))
    t.append(I("READ whose inner JSON is cut", fjson(control("READ", fjson(read())[:-1])), "truncated",
               flags=["InnerError"]))
    t.append(I("RREQ whose inner payload is not JSON", fjson(control("RREQ", b"\x00\x01\x02")), "badJSON",
               flags=["InnerError"]))
    t.append(I("type RREQ carrying a PeerAnnounce (no requestID)", fjson(control("RREQ", fjson(announce()))),
               "missingField", flags=["InnerError"]))
    t.append(I("ANNOUNCE with hopCount -1 inside", fjson(control("ANNOUNCE", fjson(announce(hopCount=-1)))),
               "ttlOutOfRange", flags=["InnerError"]))
    t.append(I("a JSON array instead of an object", fjson(["ACK", b64(fjson(dack()))]), "wrongType"))
    t.append(A("type given twice (ACK, then READ)", fjson(Obj(("payload", b64(fjson(dack()))), ("type", "ACK"),
                                                                 ("type", "READ"))),
               error="duplicateKey", flags=["DuplicateKey"]))
    notes = {
        "NonCanonical": "Valid but not the canonical bytes (keys sorted at both levels, '/' escaped, no unknown "
                        "keys); decoders must accept it.",
        "Slash": "JSONEncoder escapes '/' as '\\/' (no .withoutEscapingSlashes); base64 often holds '/'. "
                 "Decoders must accept both forms.",
        "Truncated": "Empty input.",
        "GroupKeyDistribute": "GKD existed only in the 'secure' snapshot 471fcaea and was removed in dcd2103c; "
                              "the current type set is RREQ, RREP, RERR, ANNOUNCE, ACK, READ.",
        "InnerError": "The control JSON is fine but the message inside its payload is not: the inner "
                      "decoder's error propagates.",
        "DuplicateKey": "A key given twice: Foundation's JSONDecoder takes the first value, meshconform refuses.",
    }
    src = (INDEPENDENT + F_CTRL + ": struct ControlMessage {type: ControlMessageType (String raw values), "
           "payload: Data}, payload = JSONEncoder().encode(inner) in base64; decoded shows the inner message "
           "in its own neutral form.")
    write_file("blemesh.control", "blemesh", src, notes, t)


# ---------------------------------------------------------------- envelopes

USER_PAYLOAD = fjson({"text": "Hello from the mesh"})   # MessagePayload with nil optionals left out


def envelope(**kw):
    d = {"id": MSG_1, "originID": DEV_A, "originName": "Alice", "destinationID": DEV_B,
         "timestamp": ISO_2025_05_03, "sequenceNumber": 42, "ttl": 3, "hopPath": [DEV_A],
         "isControlMessage": False, "isEncrypted": False, "isGroupMessage": False, "payload": USER_PAYLOAD}
    for k in ("conversationID", "signature"):
        if k in kw:
            d[k] = None
    d.update(kw)
    d = {k: v for k, v in d.items() if v is not None}   # nil optionals: key left out
    # declaration order: id, originID, originName, destinationID?, conversationID?, timestamp, sequenceNumber,
    # ttl, hopPath, isControlMessage, isEncrypted, isGroupMessage, payload, signature?
    order = ["id", "originID", "originName", "destinationID", "conversationID", "timestamp", "sequenceNumber",
             "ttl", "hopPath", "isControlMessage", "isEncrypted", "isGroupMessage", "payload", "signature"]
    return {k: d[k] for k in order if k in d}


def env_wire(d):
    w = dict(d)
    for k in ("payload", "signature"):
        if isinstance(w.get(k), (bytes, bytearray)):
            w[k] = b64(w[k])
    return w


def env_neutral(d):
    n = {}
    for k, v in d.items():
        if v is None:
            continue
        if k in ("payload", "signature"):
            v = hexs(v)
        elif k == "sequenceNumber":
            v = str(v)
        elif k == "hopPath":
            v = [e.upper() for e in v]
        elif k in ("id", "originID", "destinationID", "conversationID"):
            v = v.upper()
        n[k] = v
    return n


def env_bytes(d, sort=True):
    return fjson(env_wire(d), sort=sort)


def announce_envelope(**kw):
    """The ANNOUNCE envelope RoutingService.announceSelf writes (ttl 2, control, broadcast)."""
    ctrl = fjson(control("ANNOUNCE", fjson(announce(), sort=False)), sort=False)
    return envelope(id=MSG_2, destinationID=None, ttl=2, isControlMessage=True, payload=ctrl, **kw)


def envelope_tests():
    t = []
    base = envelope()
    del_dest = {k: v for k, v in base.items() if k != "destinationID"}
    N = env_neutral
    t.append(V("directed user message Alice -> Bob, MessagePayload {\"text\":...}, seq 42, ttl 3",
               env_bytes(base), N(base)))
    t.append(V("broadcast: destinationID absent", env_bytes(del_dest), N(del_dest), flags=["Broadcast"]))
    t.append(V("declaration order (the app's plain JSONEncoder with .iso8601 on swift-foundation)",
               env_bytes(base, sort=False), N(base), canonical=False, flags=["NonCanonical"]))
    ann = announce_envelope()
    ann = {k: v for k, v in ann.items() if v is not None}
    t.append(V("ANNOUNCE control envelope as RoutingService builds it (ttl 2, broadcast, control)",
               env_bytes(ann), N(ann), flags=["Broadcast"]))
    ackm = fjson(control("ACK", fjson(dack(timestamp=TS_FRAC), sort=False)), sort=False)
    acke = {k: v for k, v in envelope(id=MSG_2, originID=DEV_B, originName="Bob", destinationID=None, ttl=2,
                                        hopPath=[DEV_B], isControlMessage=True, payload=ackm).items()
            if v is not None}
    t.append(V("ACK control envelope (ttl = hopPath.count + 1 of the acked message)", env_bytes(acke), N(acke),
               flags=["Broadcast"]))
    grp = envelope(conversationID=CONV, destinationID=None, isGroupMessage=True)
    grp = {k: v for k, v in grp.items() if v is not None}
    t.append(V("group message with conversationID", env_bytes(grp), N(grp), flags=["Broadcast"]))
    sig = envelope(signature=bytes(range(64)))
    t.append(V("with a 64-byte signature (the 471fcaea version's P-256 ECDSA field)", env_bytes(sig), N(sig),
               flags=["Signature"]))
    relayed = envelope(ttl=2, hopPath=[DEV_A, DEV_C])
    t.append(V("after one relay: ttl 2, hopPath [A, C]", env_bytes(relayed), N(relayed)))
    for seq, c in ((2 ** 53 + 1, "sequenceNumber 2^53 + 1"), (U64_MAX, "sequenceNumber UInt64.max")):
        m = envelope(sequenceNumber=seq)
        t.append(V(c, env_bytes(m), N(m), flags=["Above2^53"]))
    for ttl in (0, 255):
        m = envelope(ttl=ttl)
        t.append(V("ttl %d" % ttl, env_bytes(m), N(m), flags=["Ttl"]))
    m = envelope(hopPath=[])
    t.append(V("hopPath empty", env_bytes(m), N(m)))
    m = envelope(originName="Zoë's \"phone\" / 2\t\u0001")
    t.append(V("originName with a quote, a slash (written \\/), a tab, a control byte and non-ASCII",
               env_bytes(m), N(m)))
    w = env_wire(base)
    t.append(V("timestamp with offset +02:00 (same instant)",
               fjson(dict(w, timestamp="2025-05-03T02:00:00+02:00")), N(base), canonical=False,
               flags=["NonCanonical", "Date"]))
    t.append(V("destinationID null (decodeIfPresent: same as absent)", fjson(dict(env_wire(del_dest),
               destinationID=None)), N(del_dest), canonical=False, flags=["NonCanonical", "Broadcast"]))
    t.append(V("lowercase UUIDs in hopPath and originID", fjson(dict(w, originID=DEV_A.lower(),
               hopPath=[DEV_A.lower()])), N(base), canonical=False, flags=["NonCanonical"]))
    t.append(V("unknown key \"hops\" (dropped)", fjson(dict(w, hops=1)), N(base), canonical=False,
               flags=["NonCanonical"]))
    t.append(V("'/' in the payload base64 unescaped",
               fjson(dict(w, payload="PLACEHOLDER")).replace(b"PLACEHOLDER", b64(b"\xff\xff\xff?").encode()),
               N(dict(base, payload=b"\xff\xff\xff?")), canonical=False, flags=["NonCanonical"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("cut inside the payload string", env_bytes(base)[:env_bytes(base).index(b'"payload"') + 15],
               "truncated", flags=["Truncated"]))
    t.append(I("not JSON: the envelope's base64 text, unquoted", b64(env_bytes(base)).encode()[:40], "badJSON"))
    t.append(I("a JSON array instead of an object", fjson([MSG_1, DEV_A]), "wrongType"))
    t.append(I("id missing", fjson({k: v for k, v in w.items() if k != "id"}), "missingField"))
    t.append(I("isGroupMessage missing", fjson({k: v for k, v in w.items() if k != "isGroupMessage"}),
               "missingField"))
    t.append(I("timestamp null", fjson(dict(w, timestamp=None)), "wrongType"))
    t.append(I("timestamp without a zone", fjson(dict(w, timestamp="2025-05-03T00:00:00")), "badDate",
               flags=["Date"]))
    t.append(A("timestamp 2025-02-30: Foundation's .iso8601 rolls it over to March 2, meshconform refuses it",
               fjson(dict(w, timestamp="2025-02-30T00:00:00Z")), error="badDate", flags=["Date"]))
    t.append(I("timestamp as the 2001-epoch number (the inner messages' convention)",
               fjson(dict(w, timestamp=REF_2025_05_03)), "wrongType", flags=["Date"]))
    t.append(A("timestamp with fractional seconds: swift-foundation's .iso8601 accepts it, older Foundation "
               "and meshconform refuse it", fjson(dict(w, timestamp="2025-05-03T00:00:00.123Z")), error="badDate",
               flags=["Date"]))
    t.append(I("ttl -1", fjson(dict(w, ttl=-1)), "ttlOutOfRange", flags=["Ttl", "AppBug"]))
    t.append(I("ttl 256", fjson(dict(w, ttl=256)), "ttlOutOfRange", flags=["Ttl", "AppBug"]))
    t.append(I("sequenceNumber -1", fjson(dict(w, sequenceNumber=-1)), "valueOutOfRange", flags=["Above2^53"]))
    t.append(I("sequenceNumber 2^64", fjson(dict(w, sequenceNumber=2 ** 64)), "valueOutOfRange",
               flags=["Above2^53"]))
    t.append(I("sequenceNumber 1.5", fjson(dict(w, sequenceNumber=Raw("1.5"))), "wrongType"))
    t.append(I("isEncrypted as the string \"false\"", fjson(dict(w, isEncrypted="false")), "wrongType"))
    t.append(I("isControlMessage as 0", fjson(dict(w, isControlMessage=0)), "wrongType"))
    t.append(I("originName a number", fjson(dict(w, originName=1)), "wrongType"))
    t.append(I("payload not base64", fjson(dict(w, payload="not base64!")), "badBase64"))
    t.append(I("hopPath[0] not a UUID", fjson(dict(w, hopPath=["Alice"])), "badUUID"))
    t.append(I("destinationID not a UUID", fjson(dict(w, destinationID="broadcast")), "badUUID"))
    t.append(A("id given twice", fjson(Obj(*([("id", MSG_2)] + sorted(w.items())))), error="duplicateKey",
               flags=["DuplicateKey"]))
    notes = {
        "NonCanonical": "Valid but not the canonical bytes (sorted keys, '...Z' dates, uppercase UUIDs, '/' "
                        "escaped, no null optionals, no unknown keys); decoders must accept it.",
        "Broadcast": "destinationID absent (nil = broadcast; synthesized Encodable leaves the key out).",
        "Signature": "signature present: only the 471fcaea snapshot set it (dcd2103c always nil).",
        "Above2^53": "sequenceNumber is UInt64: exact above 2^53, refused outside 0...UInt64.max.",
        "Ttl": "ttl at or beyond 0...255. The app's field is an Int (Foundation accepts any Int); the dialect "
               "bounds it to 0...255 and a conforming decoder refuses the rest.",
        "AppBug": "BLEMesh's decoder accepts it (MessageEnvelope.ttl is any Int: "
                  "Models/Routing/MessageEnvelope.swift:12@dcd2103c); a conforming decoder refuses it "
                  "(BLEMESH-W2, blemesh.md section 6 row 17).",
        "Date": "The envelope uses .iso8601: 'yyyy-MM-ddTHH:mm:ssZ', whole seconds; an offset is the same "
                "instant, written back as Z. A number, a missing zone or an impossible day is refused.",
        "Truncated": "Empty input or JSON cut mid-value.",
        "DuplicateKey": "A key given twice: Foundation's JSONDecoder takes the first value, meshconform refuses.",
    }
    src = (INDEPENDENT + F_ENV + "; payloads as built by the user-message and control inits, and " + F_SEND +
           ". Dates with encoder.dateEncodingStrategy = .iso8601 (whole seconds, Z).")
    write_file("blemesh.envelope", "blemesh", src, notes, t)


# ---------------------------------------------------------------- chunks

MAX_CHUNK = 512     # ATT maximum attribute value length: one chunk is one GATT write / notify value
MAX_TOTAL = 1024    # meshconform's cap on totalChunks (1024 * 162 B = 165 888 B); the app has none


def chunk(msg=MSG_1, index=0, total=1, flags=3, payload=b""):
    return {"messageID": msg, "chunkIndex": index, "totalChunks": total, "flags": flags, "payload": payload}


def chunk_wire(c):
    return dict(c, payload=b64(c["payload"]))


def chunk_bytes(c, sort=True):
    return fjson(chunk_wire(c), sort=sort)


def chunk_neutral(c):
    return dict(c, messageID=c["messageID"].upper(), payload=hexs(c["payload"]))


def chunks_of(msg, data, per=162):
    """ChunkCreator.createChunks: 162-byte pieces, flags first=1 / last=2."""
    total = -(-len(data) // per)
    out = []
    for i in range(total):
        f = (1 if i == 0 else 0) | (2 if i == total - 1 else 0)
        out.append(chunk(msg, i, total, f, data[i * per:(i + 1) * per]))
    return out


def chunk_tests():
    t = []
    env = env_bytes(envelope())
    pieces = chunks_of(MSG_1, env)
    assert len(pieces) == 3, len(env)
    for c in pieces:
        b = chunk_bytes(c)
        assert len(b) <= MAX_CHUNK
        t.append(V("chunk %d of %d of the directed user envelope (blemesh.envelope tcId 1), flags %d, "
                   "162-byte pieces as ChunkCreator cuts them; the payloads concatenated are the envelope"
                   % (c["chunkIndex"], c["totalChunks"], c["flags"]), b, chunk_neutral(c), flags=["Envelope"]))
    single = chunk(MSG_2, 0, 1, 3, USER_PAYLOAD)
    t.append(V("single chunk: index 0, total 1, flags 3 (first|last), as ChunkCreator marks it",
               chunk_bytes(single), chunk_neutral(single)))
    t.append(V("the first chunk in declaration order (the app's plain JSONEncoder)", chunk_bytes(pieces[0], sort=False),
               chunk_neutral(pieces[0]), canonical=False, flags=["NonCanonical", "Envelope"]))
    reserved = chunk(MSG_2, 0, 1, 0xE3, USER_PAYLOAD)
    t.append(V("flags 0xE3: first|last plus reserved bits 5-7 (carried, not interpreted)", chunk_bytes(reserved),
               chunk_neutral(reserved), flags=["Flags"]))
    allf = chunk(MSG_2, 0, 1, 0x1F, USER_PAYLOAD)
    t.append(V("flags 0x1F: first|last|requiresAck|relayed|encrypted (defined, never set by the app)",
               chunk_bytes(allf), chunk_neutral(allf), flags=["Flags"]))
    z = chunk(MSG_2, 0, 1, 0, b"")
    t.append(V("flags 0, empty payload (the app makes no chunk for empty data)", chunk_bytes(z), chunk_neutral(z),
               flags=["Flags"]))
    last = chunk(MSG_2, MAX_TOTAL - 1, MAX_TOTAL, 2, b"\x00")
    t.append(V("index 1023 of 1024, the largest total", chunk_bytes(last), chunk_neutral(last)))
    sl = chunk(MSG_2, 0, 1, 3, b"\xfb\xff\xbf")
    assert "/" in b64(sl["payload"])
    t.append(V("payload base64 '+/+/' written with '\\/' as JSONEncoder does", chunk_bytes(sl), chunk_neutral(sl),
               flags=["Slash"]))
    t.append(V("the same with '/' unescaped", chunk_bytes(sl).replace(b"\\/", b"/"), chunk_neutral(sl),
               canonical=False, flags=["NonCanonical", "Slash"]))
    t.append(V("lowercase messageID", chunk_bytes(dict(single, messageID=MSG_2.lower())), chunk_neutral(single),
               canonical=False, flags=["NonCanonical"]))
    t.append(V("unknown key \"mtu\" (dropped)", fjson(dict(chunk_wire(single), mtu=182)), chunk_neutral(single),
               canonical=False, flags=["NonCanonical"]))
    # Exactly 512 bytes, and 513: grow the payload and the index digits until the size fits.
    exact = over = None
    for n in range(200, 400):
        for idx in (0, 10, 100):
            for fl in (0, 16, 128):
                c = chunk(MSG_2, idx, 1000, fl, (bytes(range(256)) * 2)[:n])
                size = len(chunk_bytes(c))
                if size == MAX_CHUNK and exact is None:
                    exact = c
                if size == MAX_CHUNK + 1 and over is None:
                    over = c
    assert exact and over
    t.append(V("exactly 512 bytes (the ATT attribute maximum)", chunk_bytes(exact), chunk_neutral(exact),
               flags=["Size"]))
    t.append(I("513 bytes, otherwise valid", chunk_bytes(over), "tooLarge", flags=["Size", "AppBug"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("cut inside the payload (an MTU cut of a notify)", chunk_bytes(pieces[0])[:179], "truncated",
               flags=["Truncated"]))
    t.append(I("chunkIndex == totalChunks", chunk_bytes(chunk(MSG_2, 1, 1, 2, USER_PAYLOAD)), "chunkIndexOutOfRange",
               flags=["ChunkRange", "AppBug"]))
    t.append(I("totalChunks 0", chunk_bytes(chunk(MSG_2, 0, 0, 3, USER_PAYLOAD)), "chunkIndexOutOfRange",
               flags=["ChunkRange", "AppBug"]))
    t.append(I("chunkIndex -1", chunk_bytes(chunk(MSG_2, -1, 2, 1, USER_PAYLOAD)), "chunkIndexOutOfRange",
               flags=["ChunkRange", "AppBug"]))
    t.append(I("totalChunks 1025 (above the cap)", chunk_bytes(chunk(MSG_2, 0, MAX_TOTAL + 1, 1, USER_PAYLOAD)),
               "chunkIndexOutOfRange", flags=["ChunkRange", "AppBug"]))
    t.append(I("flags 256 (UInt8)", chunk_bytes(chunk(MSG_2, 0, 1, 256, USER_PAYLOAD)), "valueOutOfRange",
               flags=["Flags"]))
    t.append(I("flags -1", chunk_bytes(chunk(MSG_2, 0, 1, -1, USER_PAYLOAD)), "valueOutOfRange", flags=["Flags"]))
    t.append(I("chunkIndex 0.5", fjson(dict(chunk_wire(single), chunkIndex=Raw("0.5"))), "wrongType"))
    t.append(I("payload not base64", fjson(dict(chunk_wire(single), payload="***")), "badBase64"))
    t.append(I("payload base64 without padding", fjson(dict(chunk_wire(single), payload="aGk")), "badBase64"))
    t.append(I("messageID not a UUID", fjson(dict(chunk_wire(single), messageID="chunk-1")), "badUUID"))
    t.append(I("payload missing", fjson({k: v for k, v in chunk_wire(single).items() if k != "payload"}),
               "missingField"))
    ann_env = env_bytes(announce_envelope(), sort=False)
    assert len(ann_env) > MAX_CHUNK, len(ann_env)
    t.append(I("the ANNOUNCE envelope RoutingService writes raw, without chunk wrapping (%d bytes): already "
               "above 512 bytes, so the size check refuses it before the missing messageID" % len(ann_env),
               ann_env, "tooLarge", flags=["UnchunkedControl", "Size"]))
    small = announce_envelope(hopPath=[])
    small_env = env_bytes(small, sort=False)
    assert len(small_env) <= MAX_CHUNK, len(small_env)
    t.append(I("the same raw ANNOUNCE envelope with an empty hopPath (%d bytes, within 512): not a chunk, "
               "no messageID" % len(small_env), small_env, "missingField", flags=["UnchunkedControl"]))
    t.append(I("a JSON array instead of an object", fjson([MSG_2, 0, 1, 3, ""]), "wrongType"))
    t.append(A("totalChunks given twice", fjson(Obj(*(sorted(chunk_wire(single).items()) + [("totalChunks", 2)]))),
               error="duplicateKey", flags=["DuplicateKey"]))
    notes = {
        "Envelope": "The chunks of a real envelope: ChunkCreator cuts the serialized envelope into 162-byte "
                    "(MTU 182 - 20) pieces; messageID is the envelope id; flags first=1 on index 0, last=2 on "
                    "the last index.",
        "NonCanonical": "Valid but not the canonical bytes (sorted keys, '/' escaped, uppercase UUID, no "
                        "unknown keys); decoders must accept it.",
        "Flags": "flags is a UInt8 OptionSet (first 0x01, last 0x02, requiresAck 0x04, relayed 0x08, "
                 "encrypted 0x10); other bits are carried as is; outside 0...255 is valueOutOfRange.",
        "Slash": "JSONEncoder escapes '/' in base64 as '\\/'; decoders accept both.",
        "Size": "A chunk is one GATT write or notify value, at most 512 bytes (the ATT attribute maximum); "
                "larger input is tooLarge.",
        "AppBug": "BLEMesh's decoder accepts it (MessageChunk takes any Int for chunkIndex and totalChunks, and "
                  "bytes of any size: Models/Message.swift:92-97@dcd2103c); a conforming decoder refuses it "
                  "(BLEMESH-W1, blemesh.md section 6 row 18).",
        "Truncated": "Empty input or JSON cut mid-value.",
        "ChunkRange": "chunkIndex must be in 0..<totalChunks and totalChunks in 1...1024 (meshconform's cap; the "
                      "app's Int fields have none, but its assembler can never complete such a message).",
        "UnchunkedControl": "WIRE-FACTS bug: RoutingService writes ANNOUNCE/RREQ/RREP/RERR envelopes raw, but "
                            "receivers only run MessageChunk.deserialize, so these are never understood. The "
                            "bytes are the ANNOUNCE envelope of blemesh.envelope in declaration key order, as the "
                            "app writes it; at 546 bytes it is already above the 512-byte ATT maximum (tooLarge), "
                            "so a second vector empties its hopPath to fit and shows the chunk decoding failure "
                            "itself (missingField: no messageID).",
        "DuplicateKey": "A key given twice: Foundation's JSONDecoder takes the first value, meshconform refuses.",
    }
    src = (INDEPENDENT + F_CHUNK + ": struct MessageChunk {messageID: UUID, chunkIndex: Int, totalChunks: Int, "
           "flags: UInt8, payload: Data}, plain JSONEncoder; one chunk per GATT value. Envelope bytes from "
           + F_ENV + "; the unchunked control case from " + F_SEND + ".")
    write_file("blemesh.chunk", "blemesh", src, notes, t)


def main():
    chunk_tests()
    envelope_tests()
    control_tests()
    write_inner()


if __name__ == "__main__":
    main()
