#!/usr/bin/env python3
"""Golden vectors of the peat dialect (peat-btle, defenseunicorns/peat-btle).

Writes Vectors/peat.document.json, peat.peripheral.json, peat.emergency.json,
peat.relay-envelope.json, peat.encrypted.json, peat.key-exchange.json, peat.peer-e2ee.json,
peat.device-name.json. Bytes are packed here with Python's struct (little-endian, as peat-btle's
to_le_bytes), keys and seals come from the `cryptography` package: nothing from the Swift codecs.
Deterministic: fixed ids, keys, nonces and timestamps.
"""

import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

from common import A, I, V, hexs, u64, write_file  # noqa: E402

APP = ("defenseunicorns/peat-btle (Rust; earlier hive-btle): src/document.rs (HiveDocument encode/decode, markers "
       "0xAB-0xB2, MIN/TARGET/MAX_DOCUMENT_SIZE), src/sync/crdt.rs (GCounter, Peripheral, HealthStatus, Position, "
       "PeripheralEvent, EmergencyEvent, MIN_VALID_TIMESTAMP, MAX_EMERGENCY_ACKS, MAX_COUNTER_ENTRIES), src/relay.rs "
       "(RelayEnvelope, MessageId::from_content), src/security/mesh_key.rs (MeshEncryptionKey), "
       "src/security/peer_key.rs (KeyExchangeMessage, derive_session_key), src/config.rs and lib.rs (device name)")
INDEPENDENT = ("Valid bytes packed by Vectors/generators/peat.py with Python's struct (little-endian as the Rust "
               "to_le_bytes calls) and the `cryptography` package (X25519, HKDF-SHA256, ChaCha20-Poly1305), "
               "independent of the Swift codecs; layouts, limits and constants transcribed from ")

TS = 1746230400000            # 2025-05-03T00:00:00Z in ms, above MIN_VALID_TIMESTAMP
MIN_TS = 1577836800000        # 2020-01-01T00:00:00Z in ms
NODE_A, NODE_B, NODE_C = 0x12345678, 0x9ABCDEF0, 0x0000002A

OK, WRONG = "", ""


def u32(v):
    return struct.pack("<I", v)


def q64(v):
    return struct.pack("<Q", v)


def f32(v):
    return struct.pack("<f", v)


def f32v(v):
    """The double a Float32 becomes, as the neutral form prints it."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


# ---------------------------------------------------------------- peripheral

def peripheral(pid=0xAABBCCDD, parent=NODE_A, ptype=1, callsign=b"ALPHA-1", health=(87, 1, 0, 72),
               event=None, ts=TS, location=None, loc_byte=True, raw_callsign=None):
    b = u32(pid) + u32(parent) + bytes([ptype])
    b += raw_callsign if raw_callsign is not None else callsign.ljust(12, b"\x00")
    b += bytes(health)
    if event is None:
        b += b"\x00"
    else:
        b += b"\x01" + bytes([event[0]]) + q64(event[1])
    b += q64(ts)
    if location is not None:
        lat, lon, alt, acc = location
        flags = (1 if alt is not None else 0) | (2 if acc is not None else 0)
        b += b"\x01" + f32(lat) + f32(lon) + bytes([flags])
        if alt is not None:
            b += f32(alt)
        if acc is not None:
            b += f32(acc)
    elif loc_byte:
        b += b"\x00"
    return b


def peripheral_n(pid=0xAABBCCDD, parent=NODE_A, ptype=1, callsign="ALPHA-1", health=(87, 1, 0, 72),
                 event=None, ts=TS, location=None, loc_byte=True):
    h = {"battery": health[0], "activity": health[1], "alerts": health[2]}
    if health[3]:
        h["heartRate"] = health[3]
    d = {"id": pid, "parent": parent, "type": ptype, "callsign": callsign, "health": h, "timestamp": u64(ts)}
    if event is not None:
        d["event"] = {"type": event[0], "timestamp": u64(event[1])}
    if location is not None:
        lat, lon, alt, acc = location
        loc = {"latitude": f32v(lat), "longitude": f32v(lon)}
        if alt is not None:
            loc["altitude"] = f32v(alt)
        if acc is not None:
            loc["accuracy"] = f32v(acc)
        d["location"] = loc
    elif not loc_byte:
        d["locationByte"] = False
    return d


def peat_peripheral():
    notes = {
        "Event": "has_event set: event type u8 + timestamp u64 (0 = not set, otherwise not before 2020)",
        "Location": "has_location set: latitude, longitude f32, flags (bit 0 altitude, bit 1 accuracy) and the optional f32s",
        "Legacy": "no has_location byte at all: the 34-byte form of encoders before v0.1.0-rc.7, still accepted",
        "Callsign": "callsign is 12 bytes, UTF-8 then NUL padding; nothing may follow the first NUL",
        "Range": "a field outside peat-btle's validation range (battery, activity, heart rate, coordinates, ids)",
        "AppBug": "peat-btle accepts it: it reads an undefined type as Unknown and re-encodes it as 0 (peat.md section 7 row 6), and keeps a peripheral whose location or event its own decoders refuse, without them; it reads the callsign to its first NUL, nothing after the has_location byte, no location flag bit beyond 0-1 (row 13); a conforming decoder refuses it (PEAT-W3)",
        "Truncated": "input ends inside a field",
    }
    t = []
    t.append(V("soldier sensor ALPHA-1, battery 87 %, walking, heart rate 72, no event, no location (35 bytes)",
               peripheral(), peripheral_n()))
    t.append(V("no has_location byte: 34 bytes, the smallest peripheral", peripheral(loc_byte=False),
               peripheral_n(loc_byte=False), flags=["Legacy"]))
    t.append(V("event Emergency (3) at 2025-05-03", peripheral(event=(3, TS)), peripheral_n(event=(3, TS)), flags=["Event"]))
    t.append(V("event Ack (6) with timestamp 0 (not set)", peripheral(event=(6, 0)), peripheral_n(event=(6, 0)), flags=["Event"]))
    t.append(V("location with neither altitude nor accuracy", peripheral(location=(37.7749, -122.4194, None, None)),
               peripheral_n(location=(37.7749, -122.4194, None, None)), flags=["Location"]))
    t.append(V("location with altitude only (flag bit 0)", peripheral(location=(-33.8688, 151.2093, 58.0, None)),
               peripheral_n(location=(-33.8688, 151.2093, 58.0, None)), flags=["Location"]))
    t.append(V("location with accuracy only (flag bit 1)", peripheral(location=(0.0, 0.0, None, 5.5)),
               peripheral_n(location=(0.0, 0.0, None, 5.5)), flags=["Location"]))
    t.append(V("event and location with both flags (the longest peripheral, 60 bytes)",
               peripheral(event=(2, TS), location=(90.0, 180.0, 100000.0, 0.0)),
               peripheral_n(event=(2, TS), location=(90.0, 180.0, 100000.0, 0.0)), flags=["Event", "Location"]))
    t.append(V("callsign of exactly 12 bytes (no NUL)", peripheral(callsign=b"BRAVO-TEAM-9"),
               peripheral_n(callsign="BRAVO-TEAM-9"), flags=["Callsign"]))
    t.append(V("empty callsign (12 NULs), type relay (3), no heart rate", peripheral(callsign=b"", ptype=3, health=(100, 0, 0x0F, 0)),
               peripheral_n(callsign="", ptype=3, health=(100, 0, 0x0F, 0)), flags=["Callsign"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("33 bytes: legacy form one byte short", peripheral(loc_byte=False)[:-1], "truncated", flags=["Truncated"]))
    t.append(I("has_event set but the event is cut (peat-btle needs 43 bytes)", peripheral(event=(3, TS))[:40], "truncated",
               flags=["Event", "Truncated"]))
    t.append(I("location flag altitude set but the altitude is missing",
               peripheral(location=(1.0, 2.0, 3.0, None))[:-4], "truncated", flags=["Location", "Truncated", "AppBug"]))
    t.append(I("peripheral id 0", peripheral(pid=0), "valueOutOfRange", flags=["Range"]))
    t.append(I("battery 101 %", peripheral(health=(101, 1, 0, 72)), "valueOutOfRange", flags=["Range"]))
    t.append(I("activity 4", peripheral(health=(50, 4, 0, 72)), "valueOutOfRange", flags=["Range"]))
    t.append(I("heart rate 19 (below 20)", peripheral(health=(50, 1, 0, 19)), "valueOutOfRange", flags=["Range"]))
    t.append(I("latitude 90.5", peripheral(location=(90.5, 0.0, None, None)), "valueOutOfRange", flags=["Location", "Range", "AppBug"]))
    t.append(I("event timestamp 1 ms before 2020", peripheral(event=(3, MIN_TS - 1)), "badDate", flags=["Event", "AppBug"]))
    t.append(I("peripheral timestamp 1000 (before 2020, not 0)", peripheral(ts=1000), "badDate"))
    t.append(I("event type 7 (undefined)", peripheral(event=(7, TS)), "unknownType", flags=["Event", "AppBug"]))
    t.append(I("peripheral type 4 (undefined; peat-btle reads it as Unknown and re-encodes 0)", peripheral(ptype=4), "unknownType", flags=["AppBug"]))
    t.append(I("callsign 'AB' NUL 'C': a byte after the padding starts", peripheral(raw_callsign=b"AB\x00C".ljust(12, b"\x00")),
               "valueOutOfRange", flags=["Callsign", "AppBug"]))
    t.append(I("callsign not UTF-8 (0xFF)", peripheral(raw_callsign=b"\xff".ljust(12, b"\x00")), "valueOutOfRange", flags=["Callsign"]))
    t.append(I("has_event 2", peripheral()[:25] + b"\x02" + peripheral()[26:], "valueOutOfRange"))
    t.append(I("a byte after the has_location byte", peripheral() + b"\x00", "trailingBytes", flags=["AppBug"]))
    t.append(I("location flags 0x04 (undefined bit)", peripheral(location=(1.0, 2.0, None, None))[:-1] + b"\x04",
               "valueOutOfRange", flags=["Location", "Range", "AppBug"]))
    return write_file("peat.peripheral", "peat", INDEPENDENT + APP, notes, t)


# ---------------------------------------------------------------- emergency

def emergency(source=NODE_A, ts=TS, acks=((NODE_A, 1), (NODE_B, 0)), count=None):
    b = u32(source) + q64(ts) + u32(len(acks) if count is None else count)
    for node, acked in acks:
        b += u32(node) + bytes([acked])
    return b


def emergency_n(source=NODE_A, ts=TS, acks=((NODE_A, 1), (NODE_B, 0))):
    return {"source": source, "timestamp": u64(ts), "acks": [{"node": n, "acked": bool(a)} for n, a in acks]}


def peat_emergency():
    notes = {
        "Limit": "a limit peat-btle's EmergencyEvent::decode enforces: source 0, timestamp before 2020, more than 256 acks",
        "AppBug": "peat-btle accepts it: it skips node 0, ignores the order and lets a repeat overwrite (peat.md section 7 row 3), reads any non-zero acked byte as acked and nothing after the last entry (row 14); a conforming decoder refuses it (PEAT-W4)",
        "Order": "ack entries must be strictly ascending by node (peat-btle writes a BTreeMap in order; meshconform refuses any other order or a repeat)",
        "Truncated": "input ends inside a field, or num_acks promises more entries than follow",
    }
    many = tuple((n, n % 2) for n in range(1, 257))
    t = []
    t.append(V("emergency from 0x12345678, source acked, one peer pending", emergency(), emergency_n()))
    t.append(V("no acks at all (16 bytes, the smallest)", emergency(acks=()), emergency_n(acks=())))
    t.append(V("timestamp exactly 2020-01-01T00:00:00Z", emergency(ts=MIN_TS), emergency_n(ts=MIN_TS), flags=["Limit"]))
    t.append(V("256 acks, the maximum", emergency(acks=many), emergency_n(acks=many), flags=["Limit"]))
    t.append(V("timestamp UInt64.max", emergency(ts=2 ** 64 - 1), emergency_n(ts=2 ** 64 - 1)))
    t.append(V("all acked, node ids 1 and 0xFFFFFFFF", emergency(acks=((1, 1), (0xFFFFFFFF, 1))),
               emergency_n(acks=((1, 1), (0xFFFFFFFF, 1)))))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("15 bytes: num_acks cut", emergency(acks=())[:15], "truncated", flags=["Truncated"]))
    t.append(I("num_acks 3 but 2 entries", emergency(count=3), "truncated", flags=["Truncated"]))
    t.append(I("source 0", emergency(source=0), "valueOutOfRange", flags=["Limit"]))
    t.append(I("timestamp 1 ms before 2020", emergency(ts=MIN_TS - 1), "badDate", flags=["Limit"]))
    t.append(I("257 acks", emergency(acks=many + ((1000, 0),)), "valueOutOfRange", flags=["Limit"]))
    t.append(I("num_acks 0xFFFFFFFF with nothing after it (no allocation from the count)", emergency(acks=(), count=0xFFFFFFFF),
               "valueOutOfRange", flags=["Limit"]))
    t.append(I("acks out of order (0x9ABCDEF0 before 0x12345678)", emergency(acks=((NODE_B, 0), (NODE_A, 1))), "outOfOrder",
               flags=["Order", "AppBug"]))
    t.append(I("the same node twice", emergency(acks=((NODE_A, 1), (NODE_A, 0))), "outOfOrder", flags=["Order", "AppBug"]))
    t.append(I("ack entry for node 0 (peat-btle skips it silently)", emergency(acks=((0, 1), (NODE_A, 1))), "valueOutOfRange",
               flags=["AppBug"]))
    t.append(I("acked byte 2", emergency(acks=((NODE_A, 2),)), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("a byte after the last entry", emergency() + b"\x00", "trailingBytes", flags=["AppBug"]))
    return write_file("peat.emergency", "peat", INDEPENDENT + APP, notes, t)


# ---------------------------------------------------------------- document

def document(version=1, node=NODE_A, counters=((NODE_A, 2),), sections=(), trailer=b"", count=None):
    b = u32(version) + u32(node) + u32(len(counters) if count is None else count)
    for n, c in counters:
        b += u32(n) + q64(c)
    for marker, data in sections:
        b += bytes([marker, 0]) + struct.pack("<H", len(data)) + data
    return b + trailer


def document_n(version=1, node=NODE_A, counters=((NODE_A, 2),), peripheral=None, emergency=None, chat=None, trailer=b""):
    d = {"version": version, "nodeId": node, "counters": [{"node": n, "count": u64(c)} for n, c in counters]}
    if peripheral is not None:
        d["peripheral"] = peripheral
    if emergency is not None:
        d["emergency"] = emergency
    if chat is not None:
        d["chat"] = hexs(chat)
    if trailer:
        d["trailer"] = hexs(trailer)
    return d


def peat_document():
    notes = {
        "Section": "marker u8 | 0x00 | len u16 LE | data; 0xAB peripheral, 0xAC emergency, 0xAD chat (carried opaque)",
        "UnknownMarker": "the first byte that is not 0xAB-0xAD ends the sections: the rest is kept as `trailer`, not parsed (peat-btle's rule)",
        "MarkerPlacement": "a section marker repeated or out of order, or a version whose low byte is a frame marker 0xAE-0xB2 (the receiver would take it for a frame)",
        "Order": "counter entries must be strictly ascending by node",
        "AppBug": "peat-btle accepts it or would write it (a section cut short ends parsing silently; counters: node 0 skipped, order ignored; MIN_DOCUMENT_SIZE 8 though 12 bytes are read; versions are not kept off the frame markers; no size bound, sections in any order and repeated, the reserved byte unread, a section its decoder refuses dropped and the document kept); a conforming node refuses it (PEAT-W1, PEAT-W2, peat.md section 7 rows 2, 3, 4, 9, 12)",
        "Size": "the 12-byte minimum (header + num_entries; peat-btle says 8 but reads 4 more), the 512-byte maximum, 256 counter entries",
        "Truncated": "input ends inside a field or a section",
    }
    per, per_n = peripheral(), peripheral_n()
    em, em_n = emergency(), emergency_n()
    many = tuple((n, n) for n in range(1, 42))          # 12 + 41 * 12 = 504 bytes
    t = []
    t.append(V("minimal document: version 1, node 0x12345678, empty counter (12 bytes, peat-btle's own test)",
               document(counters=()), document_n(counters=()), flags=["Size"]))
    t.append(V("counter with one entry: 24 bytes (peat-btle's test_document_encode_decode_with_counter)",
               document(), document_n()))
    t.append(V("three counters in node order", document(counters=((NODE_C, 1), (NODE_A, 2), (NODE_B, 2 ** 64 - 1))),
               document_n(counters=((NODE_C, 1), (NODE_A, 2), (NODE_B, 2 ** 64 - 1)))))
    t.append(V("peripheral section", document(sections=((0xAB, per),)), document_n(peripheral=per_n), flags=["Section"]))
    t.append(V("emergency section", document(sections=((0xAC, em),)), document_n(emergency=em_n), flags=["Section"]))
    t.append(V("peripheral, emergency and chat sections in order", document(sections=((0xAB, per), (0xAC, em), (0xAD, b"\x00\x00"))),
               document_n(peripheral=per_n, emergency=em_n, chat=b"\x00\x00"), flags=["Section"]))
    t.append(V("unknown marker 0xC0 after the counter: parsing stops, the rest is kept",
               document(trailer=b"\xc0\x00\x02\x00hi"), document_n(trailer=b"\xc0\x00\x02\x00hi"), flags=["UnknownMarker"]))
    t.append(V("a frame marker 0xB2 (delta document) inside a document also ends the sections",
               document(sections=((0xAB, per),), trailer=b"\xb2\x01"), document_n(peripheral=per_n, trailer=b"\xb2\x01"),
               flags=["UnknownMarker", "Section"]))
    t.append(V("a section marker after an unknown one is not parsed (it is trailer)",
               document(trailer=b"\x00\xab\x00\x00\x00"), document_n(trailer=b"\x00\xab\x00\x00\x00"), flags=["UnknownMarker"]))
    t.append(V("41 counters: 504 bytes", document(counters=many), document_n(counters=many), flags=["Size"]))
    t.append(V("version 0xFFFFFFFF (low byte 0xFF is no marker)", document(version=0xFFFFFFFF), document_n(version=0xFFFFFFFF)))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("8 bytes: header only, no num_entries (peat-btle's MIN_DOCUMENT_SIZE is not enough)", document(counters=())[:8],
               "truncated", flags=["Size", "Truncated", "AppBug"]))
    t.append(I("num_entries 2 but one entry", document(count=2), "truncated", flags=["Truncated"]))
    t.append(I("num_entries 257", document(counters=(), count=257), "valueOutOfRange", flags=["Size"]))
    t.append(I("513 bytes (42 counters)", document(counters=tuple((n, n) for n in range(1, 42)), trailer=b"\xc0" * 9),
               "tooLarge", flags=["Size", "AppBug"]))
    t.append(I("counters out of order", document(counters=((NODE_B, 1), (NODE_A, 1))), "outOfOrder", flags=["Order", "AppBug"]))
    t.append(I("counter for node 0 (peat-btle skips it)", document(counters=((0, 1),)), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("peripheral section len beyond the end", document(sections=((0xAB, per),))[:-1], "truncated",
               flags=["Section", "Truncated", "AppBug"]))
    t.append(I("section header cut after the marker", document(trailer=b"\xab\x00"), "truncated",
               flags=["Section", "Truncated", "AppBug"]))
    t.append(I("emergency before peripheral", document(sections=((0xAC, em), (0xAB, per))), "misplacedMarker",
               flags=["MarkerPlacement", "Section", "AppBug"]))
    t.append(I("peripheral section twice", document(sections=((0xAB, per), (0xAB, per))), "misplacedMarker",
               flags=["MarkerPlacement", "Section", "AppBug"]))
    t.append(I("version 0xB1: the document begins like a relay envelope", document(version=0xB1), "misplacedMarker",
               flags=["MarkerPlacement", "AppBug"]))
    t.append(I("reserved byte of a section is 1", document()[:] + b"\xab\x01" + struct.pack("<H", len(per)) + per,
               "valueOutOfRange", flags=["Section", "AppBug"]))
    t.append(I("emergency section whose data is refused (source 0)", document(sections=((0xAC, emergency(source=0)),)),
               "valueOutOfRange", flags=["Section", "AppBug"]))
    t.append(I("peripheral section with a byte more than the peripheral", document(sections=((0xAB, per + b"\x00"),)),
               "trailingBytes", flags=["Section", "AppBug"]))
    return write_file("peat.document", "peat", INDEPENDENT + APP, notes, t)


# ---------------------------------------------------------------- relay envelope

MSG_ID = u32(NODE_A) + q64(TS) + u32(0xDEADBEEF)      # MessageId::from_content(origin, ts, hash)


def envelope(flags=0x02, mid=MSG_ID, hop=0, max_hops=7, origin=NODE_A, payload=b"", length=None, marker=0xB1):
    return (bytes([marker, flags]) + mid + bytes([hop, max_hops]) + u32(origin)
            + u32(len(payload) if length is None else length) + payload)


def envelope_n(flags=0x02, mid=MSG_ID, hop=0, max_hops=7, origin=NODE_A, payload=b""):
    return {"requiresAck": bool(flags & 1), "broadcast": bool(flags & 2), "messageId": hexs(mid), "hop": hop,
            "maxHops": max_hops, "origin": origin, "payload": hexs(payload)}


def peat_relay_envelope():
    notes = {
        "Flags": "flags bit 0 requires_ack, bit 1 broadcast; bits 2-7 must be 0",
        "Hops": "hop / max_hops: a relay increments hop while hop < max_hops; hop above max_hops is refused",
        "Length": "payload_len u32 LE must equal the bytes that follow",
        "AppBug": "peat-btle accepts it: it ignores the bytes after the payload (peat.md section 7 row 5), undefined flag bits, a hop above max_hops (not relayed, still merged), origin 0 and any size (row 15); a conforming decoder refuses it (PEAT-W5)",
        "Truncated": "input ends inside the 28-byte header or the payload",
    }
    doc = document()
    t = []
    t.append(V("broadcast, hop 0 of 7 (DEFAULT_MAX_HOPS), id from_content(origin, ts, 0xDEADBEEF), document payload",
               envelope(payload=doc), envelope_n(payload=doc), flags=["Flags"]))
    t.append(V("no flags, empty payload (28 bytes, the smallest)", envelope(flags=0), envelope_n(flags=0), flags=["Flags", "Length"]))
    t.append(V("requires_ack alone", envelope(flags=1, payload=b"\x01"), envelope_n(flags=1, payload=b"\x01"), flags=["Flags"]))
    t.append(V("requires_ack and broadcast", envelope(flags=3, payload=b"\x01"), envelope_n(flags=3, payload=b"\x01"), flags=["Flags"]))
    t.append(V("hop 7 of 7: valid, but no node relays it further", envelope(hop=7), envelope_n(hop=7), flags=["Hops"]))
    t.append(V("hop 0 of 0", envelope(max_hops=0), envelope_n(max_hops=0), flags=["Hops"]))
    t.append(V("hop 255 of 255", envelope(hop=255, max_hops=255), envelope_n(hop=255, max_hops=255), flags=["Hops"]))
    t.append(V("payload of 484 bytes: the envelope is 512 bytes", envelope(payload=bytes(484)), envelope_n(payload=bytes(484)),
               flags=["Length"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("27 bytes: payload_len cut", envelope()[:27], "truncated", flags=["Truncated"]))
    t.append(I("payload_len one more than follows", envelope(payload=b"ab", length=3), "truncated", flags=["Length", "Truncated"]))
    t.append(I("payload_len 0xFFFFFFFF (no allocation from it)", envelope(length=0xFFFFFFFF), "truncated", flags=["Length", "Truncated"]))
    t.append(I("payload_len one less than follows (peat-btle ignores the extra byte)", envelope(payload=b"ab", length=1),
               "trailingBytes", flags=["Length", "AppBug"]))
    t.append(I("marker 0xB0 (key exchange) where 0xB1 belongs", envelope(marker=0xB0), "unknownType"))
    t.append(I("flags 0x04 (undefined bit)", envelope(flags=0x04), "valueOutOfRange", flags=["Flags", "AppBug"]))
    t.append(I("hop 8 of 7", envelope(hop=8), "ttlOutOfRange", flags=["Hops", "AppBug"]))
    t.append(I("origin 0", envelope(origin=0), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("513 bytes", envelope(payload=bytes(485)), "tooLarge", flags=["Length", "AppBug"]))
    return write_file("peat.relay-envelope", "peat", INDEPENDENT + APP, notes, t)


# ---------------------------------------------------------------- encryption

MESH_ID = "DEMO"
SECRET = hashlib.sha256(b"meshconform peat formation secret").digest()


def mesh_key(mesh_id=MESH_ID, secret=SECRET):
    # MeshEncryptionKey::from_shared_secret: Hkdf::<Sha256>::new(Some(mesh_id), secret).expand(info, 32)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=mesh_id.encode(), info=b"PEAT-BTLE-mesh-encryption-v1").derive(secret)


def nonce(n):
    return bytes(range(n, n + 12))


def encrypted(plaintext, n=nonce(1), key=None, reserved=0):
    return bytes([0xAE, reserved]) + n + ChaCha20Poly1305(key or mesh_key()).encrypt(n, plaintext, None)


def peat_encrypted():
    notes = {
        "Context": "context {meshId, secret}: key = HKDF-SHA256(IKM secret, salt mesh id UTF-8, info \"PEAT-BTLE-mesh-encryption-v1\"); decoded gains the plaintext",
        "Tampered": "a ciphertext or tag byte changed, or the wrong key: the tag does not verify",
        "Truncated": "fewer than 30 bytes (marker, reserved, nonce 12, tag 16)",
        "AppBug": "peat-btle accepts it: it does not read the reserved byte and bounds no size; a conforming decoder refuses it (PEAT-W6, peat.md section 7 row 17)",
    }
    ctx = {"meshId": MESH_ID, "secret": hexs(SECRET)}
    doc = document()
    box = encrypted(doc)

    def n(b, plaintext=None):
        d = {"nonce": hexs(b[2:14]), "ciphertext": hexs(b[14:])}
        if plaintext is not None:
            d["plaintext"] = hexs(plaintext)
        return d
    empty = encrypted(b"", n=nonce(2))
    big = encrypted(bytes(482), n=nonce(3))
    other_mesh = encrypted(doc, key=mesh_key("ALPHA"))
    t = []
    t.append(V("24-byte document sealed under mesh DEMO, opened with the context", box, n(box, doc), context=ctx, flags=["Context"]))
    t.append(V("the same bytes without a key: parts only", box, n(box)))
    t.append(V("empty plaintext: 30 bytes, the smallest", empty, n(empty, b""), context=ctx, flags=["Context"]))
    t.append(V("482-byte plaintext: 512 bytes, the largest", big, n(big, bytes(482)), context=ctx, flags=["Context"]))
    t.append(V("sealed under mesh ALPHA, no key given", other_mesh, n(other_mesh)))
    t.append(V("nonce of all zeros", encrypted(doc, n=bytes(12)), n(encrypted(doc, n=bytes(12)), doc), context=ctx, flags=["Context"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("29 bytes", empty[:29], "truncated", flags=["Truncated"]))
    t.append(I("marker 0xAF", b"\xaf" + box[1:], "unknownType"))
    t.append(I("reserved byte 1", encrypted(doc, reserved=1), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("513 bytes", encrypted(bytes(483), n=nonce(4)), "tooLarge", flags=["AppBug"]))
    t.append(I("last tag byte flipped", box[:-1] + bytes([box[-1] ^ 1]), "authenticationFailed", context=ctx,
               flags=["Context", "Tampered"]))
    t.append(I("first ciphertext byte flipped", box[:14] + bytes([box[14] ^ 0x80]) + box[15:], "authenticationFailed",
               context=ctx, flags=["Context", "Tampered"]))
    t.append(I("sealed under mesh ALPHA, opened as DEMO (the mesh id is the salt)", other_mesh, "authenticationFailed",
               context=ctx, flags=["Context", "Tampered"]))
    t.append(I("secret of 31 bytes in the context", box, "badKey", context={"meshId": MESH_ID, "secret": hexs(SECRET[:31])},
               flags=["Context"]))
    return write_file("peat.encrypted", "peat", INDEPENDENT + APP, notes, t)


def x25519(label):
    seed = hashlib.sha256(label.encode()).digest()
    priv = X25519PrivateKey.from_private_bytes(seed)
    pub = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return seed, priv, pub


A_SEED, A_PRIV, A_PUB = x25519("meshconform peat node A")
B_SEED, B_PRIV, B_PUB = x25519("meshconform peat node B")
LOW_ORDER = bytes([0xE0, 0xEB, 0x7A, 0x7C, 0x3B, 0x41, 0xB8, 0xAE, 0x16, 0x56, 0xE3, 0xFA, 0xF1, 0x9F, 0xC4, 0x6A,
                   0xDA, 0x09, 0x8D, 0xEB, 0x9C, 0x32, 0xB1, 0xFD, 0x86, 0x62, 0x05, 0x16, 0x5F, 0x49, 0xB8, 0x00])


def key_exchange(sender=NODE_A, flags=0, pub=A_PUB, marker=0xB0, reserved=0):
    # peat_mesh.rs:1489-1492@1793e40f: marker, a reserved 0x00, then KeyExchangeMessage (37 bytes).
    return bytes([marker, reserved]) + u32(sender) + bytes([flags]) + pub


def peat_key_exchange():
    notes = {
        "Flags": "flags bit 0 is_ephemeral; bits 1-7 must be 0",
        "Key": "the 32-byte X25519 public key: a low-order point (all-zero shared secret) is refused",
        "AppBug": "peat-btle accepts it: it does not check the key (peat.md section 7 row 7), nor the reserved byte, sender 0, flag bits beyond bit 0 or bytes after the key (row 16); a conforming decoder refuses it (PEAT-W7)",
        "Truncated": "fewer than 39 bytes",
    }

    def n(sender=NODE_A, eph=False, pub=A_PUB):
        return {"sender": sender, "ephemeral": eph, "publicKey": hexs(pub)}
    t = []
    t.append(V("static key of node 0x12345678 (39 bytes)", key_exchange(), n()))
    t.append(V("ephemeral key (flag bit 0)", key_exchange(flags=1), n(eph=True), flags=["Flags"]))
    t.append(V("node B's static key, sender 0x9ABCDEF0", key_exchange(sender=NODE_B, pub=B_PUB), n(sender=NODE_B, pub=B_PUB)))
    t.append(V("sender 0xFFFFFFFF", key_exchange(sender=0xFFFFFFFF), n(sender=0xFFFFFFFF)))
    t.append(V("sender 1, ephemeral, node B's key", key_exchange(sender=1, flags=1, pub=B_PUB), n(sender=1, eph=True, pub=B_PUB),
               flags=["Flags"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("38 bytes: the key is one byte short (peat-btle's KeyExchangeMessage is 37 bytes after the marker and the reserved byte)",
               key_exchange()[:38], "truncated", flags=["Truncated"]))
    t.append(I("marker only", b"\xb0", "truncated", flags=["Truncated"]))
    t.append(I("40 bytes", key_exchange() + b"\x00", "trailingBytes", flags=["AppBug"]))
    t.append(I("marker 0xB1", key_exchange(marker=0xB1), "unknownType"))
    t.append(I("flags 0x02", key_exchange(flags=2), "valueOutOfRange", flags=["Flags", "AppBug"]))
    t.append(I("sender 0", key_exchange(sender=0), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("public key all zeros (low order)", key_exchange(pub=bytes(32)), "badKey", flags=["Key", "AppBug"]))
    t.append(I("public key of order 8 (RFC 7748 section 6.1 low-order point)", key_exchange(pub=LOW_ORDER), "badKey",
               flags=["Key", "AppBug"]))
    t.append(I("reserved byte 1", key_exchange(reserved=1), "valueOutOfRange", flags=["AppBug"]))
    return write_file("peat.key-exchange", "peat", INDEPENDENT + APP, notes, t)


def peer_key(priv, peer_pub, n1, n2):
    shared = priv.exchange(X25519PublicKey.from_public_bytes(peer_pub))
    salt = u32(min(n1, n2)) + u32(max(n1, n2))
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=b"PEAT-peer-e2ee-v1").derive(shared)


PEER_KEY = peer_key(A_PRIV, B_PUB, NODE_A, NODE_B)
assert PEER_KEY == peer_key(B_PRIV, A_PUB, NODE_B, NODE_A), "the session key must be the same both ways"


def peer_e2ee(plaintext=b"meet at grid 4", flags=0, recipient=NODE_B, sender=NODE_A, counter=1, n=nonce(5), key=PEER_KEY,
              marker=0xAF):
    head = bytes([marker, flags]) + u32(recipient) + u32(sender) + q64(counter) + n
    return head + ChaCha20Poly1305(key).encrypt(n, plaintext, None)


def peat_peer_e2ee():
    notes = {
        "Context": "context {privateKey, peerPublicKey} of either end: key = HKDF-SHA256(X25519, salt = smaller node id u32 LE | larger, info \"PEAT-peer-e2ee-v1\"); decoded gains the plaintext",
        "Flags": "flags bit 0 key_exchange, bit 1 forward_secrecy; bits 2-7 must be 0",
        "Collision": "0xAF is also another peat crate's 22-byte canned message: below 46 bytes an 0xAF value is never peer E2EE",
        "Tampered": "a changed byte or the wrong key: the tag does not verify",
        "Truncated": "fewer than 46 bytes",
        "AppBug": "peat-btle accepts it: it writes byte 1 as 0 and never reads it; a conforming decoder refuses undefined flag bits (PEAT-W8, peat.md section 7 row 18)",
    }
    a_ctx = {"privateKey": hexs(A_SEED), "peerPublicKey": hexs(B_PUB)}
    b_ctx = {"privateKey": hexs(B_SEED), "peerPublicKey": hexs(A_PUB)}
    msg = peer_e2ee()

    def n(b, flags=0, recipient=NODE_B, sender=NODE_A, counter=1, plaintext=None):
        d = {"keyExchange": bool(flags & 1), "forwardSecrecy": bool(flags & 2), "recipient": recipient, "sender": sender,
             "counter": u64(counter), "nonce": hexs(b[18:30]), "ciphertext": hexs(b[30:])}
        if plaintext is not None:
            d["plaintext"] = hexs(plaintext)
        return d
    t = []
    t.append(V("A to B, counter 1, opened by B", msg, n(msg, plaintext=b"meet at grid 4"), context=b_ctx, flags=["Context"]))
    t.append(V("the same, opened by A (the key is symmetric)", msg, n(msg, plaintext=b"meet at grid 4"), context=a_ctx,
               flags=["Context"]))
    t.append(V("without keys: parts only", msg, n(msg)))
    e = peer_e2ee(b"")
    t.append(V("empty plaintext: 46 bytes, the smallest", e, n(e, plaintext=b""), context=b_ctx, flags=["Context", "Collision"]))
    for fl in (1, 2, 3):
        m = peer_e2ee(flags=fl, counter=fl + 1)
        t.append(V("flags 0x%02x" % fl, m, n(m, flags=fl, counter=fl + 1, plaintext=b"meet at grid 4"), context=b_ctx,
                   flags=["Context", "Flags"]))
    m = peer_e2ee(counter=2 ** 64 - 1)
    t.append(V("counter UInt64.max", m, n(m, counter=2 ** 64 - 1)))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("22 bytes starting 0xAF: the other crate's canned message is not peer E2EE", b"\xaf" + bytes(range(21)), "truncated",
               flags=["Collision", "Truncated"]))
    t.append(I("45 bytes", e[:45], "truncated", flags=["Truncated"]))
    t.append(I("flags 0x04", peer_e2ee(flags=4), "valueOutOfRange", flags=["Flags", "AppBug"]))
    t.append(I("recipient 0", peer_e2ee(recipient=0), "valueOutOfRange"))
    t.append(I("sender equals recipient", peer_e2ee(recipient=NODE_A), "valueOutOfRange"))
    t.append(I("last tag byte flipped", msg[:-1] + bytes([msg[-1] ^ 1]), "authenticationFailed", context=b_ctx,
               flags=["Context", "Tampered"]))
    t.append(I("sealed with a key from the wrong node ids (sender field says 0x2A)",
               peer_e2ee(sender=NODE_C, key=PEER_KEY), "authenticationFailed", context=b_ctx, flags=["Context", "Tampered"]))
    t.append(I("marker 0xAE", peer_e2ee(marker=0xAE), "unknownType"))
    return write_file("peat.peer-e2ee", "peat", INDEPENDENT + APP, notes, t)


# ---------------------------------------------------------------- device name

def peat_device_name():
    notes = {
        "Case": "the node id is written %08X (uppercase); lowercase hex digits are read too",
        "Syntax": "PEAT_ prefix, a mesh id of letters and digits, '-', exactly 8 hex digits",
        "Size": "a complete local name in a legacy advertisement is at most 29 bytes",
        "AppBug": "peat-btle accepts it: it reads 1 to 8 hex digits after the first '-', an empty mesh id and one of any length; a conforming decoder refuses it (PEAT-W9, peat.md section 7 row 19)",
    }

    def nm(s):
        return s.encode()

    def n(mesh, node):
        return {"meshId": mesh, "nodeId": node}
    t = []
    t.append(V("default mesh DEMO, node 0x12345678", nm("PEAT_DEMO-12345678"), n("DEMO", NODE_A)))
    t.append(V("node 0x0000002A keeps its leading zeros", nm("PEAT_DEMO-0000002A"), n("DEMO", NODE_C)))
    t.append(V("node 0xFFFFFFFF", nm("PEAT_ALPHA-FFFFFFFF"), n("ALPHA", 0xFFFFFFFF)))
    t.append(V("one-character mesh id", nm("PEAT_X-9ABCDEF0"), n("X", NODE_B)))
    t.append(V("15-character mesh id: 29 bytes, the longest", nm("PEAT_ABCDEFGHIJKLMNO-00000001"), n("ABCDEFGHIJKLMNO", 1),
               flags=["Size"]))
    t.append(V("lowercase hex digits", nm("PEAT_DEMO-9abcdef0"), n("DEMO", NODE_B), canonical=False, flags=["Case"]))
    t.append(V("mesh id with digits and lowercase", nm("PEAT_team7b-00000000"), n("team7b", 0)))
    t.append(I("empty input", b"", "badName", flags=["Syntax"]))
    t.append(I("prefix HIVE_ (the crate's earlier name)", nm("HIVE_DEMO-12345678"), "badName", flags=["Syntax"]))
    t.append(I("7 hex digits", nm("PEAT_DEMO-1234567"), "badName", flags=["Syntax", "AppBug"]))
    t.append(I("9 hex digits: the mesh id would end in '-'", nm("PEAT_DEMO-123456789"), "badName", flags=["Syntax"]))
    t.append(I("no mesh id", nm("PEAT_-12345678"), "badName", flags=["Syntax", "AppBug"]))
    t.append(I("'G' is no hex digit", nm("PEAT_DEMO-1234567G"), "badName", flags=["Syntax"]))
    t.append(I("mesh id with '-' (the app splits on the first '-')", nm("PEAT_DE-MO-12345678"), "badName", flags=["Syntax"]))
    t.append(I("'_' instead of '-'", nm("PEAT_DEMO_12345678"), "badName", flags=["Syntax"]))
    t.append(I("16-character mesh id: 30 bytes", nm("PEAT_ABCDEFGHIJKLMNOP-00000001"), "tooLarge", flags=["Size", "AppBug"]))
    return write_file("peat.device-name", "peat", INDEPENDENT + APP, notes, t)


def main():
    peat_document()
    peat_peripheral()
    peat_emergency()
    peat_relay_envelope()
    peat_encrypted()
    peat_key_exchange()
    peat_peer_e2ee()
    peat_device_name()


if __name__ == "__main__":
    main()
