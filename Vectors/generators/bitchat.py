#!/usr/bin/env python3
"""Golden vectors of the bitchat dialect (permissionlesstech/bitchat, BinaryProtocol v1/v2).

Writes Vectors/bitchat.packet.json and bitchat.fragment.json. Every frame is built here with
Python's struct and zlib, sharing nothing with the Swift codecs; the frames of bitchat's own
published vectors (spec/vectors/wire-format.json) are rebuilt the same way and asserted equal
to the published hex before anything is written. Deterministic: no randomness, no clock.
"""

import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import A, I, V, hexs, u64, write_file  # noqa: E402

APP = ("permissionlesstech/bitchat: localPackages/BitFoundation/Sources/BitFoundation/BinaryProtocol.swift "
       "(encode, decode, decodeCore), MessagePadding.swift (pad, unpad, optimalBlockSize), CompressionUtil.swift, "
       "FileTransferLimits.swift (maxFramedFileBytes), MessageType.swift; spec/01-wire-format.md, spec/02-ble-transport.md")

PUBLISHED = ("Cross-checked against bytes published by an independent implementation: the flag Published marks "
             "frames equal byte for byte to encoded_unpadded / encoded_padded of permissionlesstech/bitchat "
             "spec/vectors/wire-format.json (spec_version 0.1.0), which bitchat generates with "
             "spec/vectors/generate_wire_format_vectors.py, an encoder that shares no code with the app, and which "
             "the app's own BitFoundation tests (WireFormatVectorTests.swift) decode and re-encode. "
             "Vectors/generators/bitchat.py rebuilds those frames from their fields and asserts equality with the "
             "published hex. All other valid bytes are built by bitchat.py with Python's struct and zlib "
             "(raw DEFLATE: wbits -15; zlib-wrapped: wbits 15; level 6), independent of meshconform's Swift codecs. "
             "Layout and limits from ")

# The published frames (spec/vectors/wire-format.json), copied as data: the cross-check.
SPEC_TS = 1700000000000
SPEC_SENDER = bytes.fromhex("0102030405060708")
SPEC_RECIPIENT = bytes.fromhex("1112131415161718")
SPEC_SIGNATURE = bytes.fromhex(
    "c846eb98426d17e4054f87578d9c84cbb98ae341ee0b78a1db3e0c12062696ac"
    "10af11176160fad96f546178d9f35ea21d01790fa7fd7b14ea9bbd09d06c1a0d")
SPEC_UNPADDED = {
    "v1-announce-broadcast": "0101070000018bcfe56800000007010203040506070862697463686174",
    "v1-directed-signed-rsr": "0102030000018bcfe5680013000b010203040506070811121314151617187369676e656420626f6479" + SPEC_SIGNATURE.hex(),
    "v2-route-two-hops": "0221050000018bcfe568000900000004010203040506070811121314151617180221222324252627283132333435363738deadbeef",
}
# The three Noise frames are long; their published headers (the first 22 bytes) are checked,
# and their payloads are the published byte ramps a0..bf, 00..ef and 00..e3.
SPEC_HEADER = {
    "v1-noise-handshake-padded-to-256": "0110070000018bcfe568000000200102030405060708",
    "v1-noise-encrypted-padded-to-512": "0111070000018bcfe568000000f00102030405060708",
    "v1-noise-encrypted-padding-overflow-unpadded": "0111070000018bcfe568000000e40102030405060708",
}
# Padded frames are the unpadded ones plus (pad length) bytes of (pad length): the published
# pad lengths are stated here and checked against the bucket rule below.
SPEC_PAD = {"v1-announce-broadcast": 0xE3, "v1-directed-signed-rsr": 0x97, "v2-route-two-hops": 0xCB,
            "v1-noise-handshake-padded-to-256": 0xCA, "v1-noise-encrypted-padded-to-512": 0xFA,
            "v1-noise-encrypted-padding-overflow-unpadded": 0}

FLAG_RECIPIENT, FLAG_SIGNATURE, FLAG_COMPRESSED, FLAG_ROUTE, FLAG_RSR = 0x01, 0x02, 0x04, 0x08, 0x10
MAX_ORIGINAL = 1048576 + 18 + 2 * 65535 + 16 + 8 + 8 + 64   # FileTransferLimits.maxFramedFileBytes

TS = 1746230400000          # 2025-05-03T00:00:00Z in ms
ALICE = bytes.fromhex("a1a1a1a1a1a1a1a1")
BOB = bytes.fromhex("b0b0b0b0b0b0b0b0")
SIG = bytes(range(0x40, 0x80))   # 64 bytes: a signature field, not a real signature


def deflate_raw(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def deflate_zlib(data):
    return zlib.compress(data, 6)


def frame(version=1, type=0x02, ttl=7, ts=TS, flags=None, sender=ALICE, recipient=None, route=None, payload=b"",
          comp=None, sig=None, length=None, orig=None, route_count=None):
    """The frame bytes. comp = compressed data (flag 0x04, original size prefix = orig or len(payload));
    length / route_count override the stated counts to build defects."""
    if flags is None:
        flags = ((FLAG_RECIPIENT if recipient is not None else 0) | (FLAG_SIGNATURE if sig is not None else 0)
                 | (FLAG_COMPRESSED if comp is not None else 0) | (FLAG_ROUTE if route is not None else 0))
    wide = version == 2
    body = payload if comp is None else (struct.pack(">I" if wide else ">H", len(payload) if orig is None else orig) + comp)
    n = len(body) if length is None else length
    out = struct.pack(">BBBQB", version, type, ttl, ts, flags) + struct.pack(">I" if wide else ">H", n) + sender
    if recipient is not None:
        out += recipient
    if route is not None:
        out += bytes([len(route) if route_count is None else route_count]) + b"".join(route)
    out += body
    if sig is not None:
        out += sig
    return out


def bucket_pad(n):
    """MessagePadding: pad to the first of 256/512/1024/2048 holding n + 16, if that takes 1...255 bytes."""
    for b in (256, 512, 1024, 2048):
        if n + 16 <= b:
            p = b - n
            return p if 1 <= p <= 255 else 0
    return 0


def pad(data, n):
    return data + bytes([n]) * n


def neutral(version=1, type=0x02, ttl=7, ts=TS, flags=None, sender=ALICE, recipient=None, route=None, payload=b"",
            comp=None, comp_format="deflate", sig=None, padding=0):
    if flags is None:
        flags = ((FLAG_RECIPIENT if recipient is not None else 0) | (FLAG_SIGNATURE if sig is not None else 0)
                 | (FLAG_COMPRESSED if comp is not None else 0) | (FLAG_ROUTE if route is not None else 0))
    d = {"version": version, "type": type, "ttl": ttl, "timestamp": u64(ts), "flags": flags, "senderID": hexs(sender),
         "payload": hexs(payload), "padding": padding}
    if recipient is not None:
        d["recipientID"] = hexs(recipient)
    if route is not None:
        d["route"] = [hexs(h) for h in route]
    if comp is not None:
        d["compression"] = {"format": comp_format, "originalSize": len(payload), "data": hexs(comp)}
    if sig is not None:
        d["signature"] = hexs(sig)
    return d


def published_cases():
    """bitchat's six published packets, rebuilt here and asserted equal to the published bytes."""
    hs = bytes(range(0xA0, 0xC0))
    cases = [
        ("v1-announce-broadcast", dict(version=1, type=0x01, ttl=7, payload=b"bitchat")),
        ("v1-directed-signed-rsr", dict(version=1, type=0x02, ttl=3, recipient=SPEC_RECIPIENT, payload=b"signed body",
                                        sig=SPEC_SIGNATURE, flags=FLAG_RECIPIENT | FLAG_SIGNATURE | FLAG_RSR)),
        ("v2-route-two-hops", dict(version=2, type=0x21, ttl=5, recipient=SPEC_RECIPIENT,
                                   route=[bytes.fromhex("2122232425262728"), bytes.fromhex("3132333435363738")],
                                   payload=bytes.fromhex("deadbeef"))),
        ("v1-noise-handshake-padded-to-256", dict(version=1, type=0x10, ttl=7, payload=hs)),
        ("v1-noise-encrypted-padded-to-512", dict(version=1, type=0x11, ttl=7, payload=bytes(range(240)))),
        ("v1-noise-encrypted-padding-overflow-unpadded", dict(version=1, type=0x11, ttl=7, payload=bytes(range(228)))),
    ]
    out = []
    for name, f in cases:
        raw = frame(ts=SPEC_TS, sender=SPEC_SENDER, **f)
        if name in SPEC_UNPADDED:
            assert raw.hex() == SPEC_UNPADDED[name], name + ": our frame differs from bitchat's published bytes"
        else:
            assert raw[:22].hex() == SPEC_HEADER[name], name + ": our header differs from bitchat's published bytes"
        assert bucket_pad(len(raw)) == SPEC_PAD[name], name + ": bucket rule differs from the published pad"
        out.append((name, f, raw, SPEC_PAD[name]))
    return out


def bitchat_packet():
    notes = {
        "Published": "Byte for byte a frame of bitchat's published vectors (spec/vectors/wire-format.json), from an encoder independent of the app",
        "Padded": "Ends in a PKCS#7 pad (every pad byte = pad length); decoders read the frame first and accept exactly one pad after it",
        "PadBoundary": "Frame length at a bucket edge: 240 and 496 bytes pad to 256 / 512 with 16 bytes; 241 and 497 would need more than 255 and stay unpadded",
        "RawFirst": "The frame's own last bytes look like padding; read raw first they are payload or signature, never cut",
        "Compressed": "Flag 0x04: original size (u16 v1, u32 v2) then the compressed payload",
        "Zlib": "Compressed payload zlib-wrapped (RFC 1950) instead of raw DEFLATE: bitchat Android decodes it, bitchat iOS does not, so a decoder may take it or refuse it",
        "LyingSize": "The original-size prefix disagrees with what the stream inflates to",
        "RatioCap": "Declared original size against the 50 000:1 compression-ratio guard",
        "FlagAlone": "One flag bit set on its own",
        "FlagsCombined": "Several flags at once",
        "ReservedFlags": "Reserved flag bits 0x20-0x80 (and 0x08 in v1): ignored on receive, kept in the neutral form",
        "Route": "v2 source route: count u8 then count x 8 bytes, outside payloadLength",
        "Version": "Version byte other than 1 or 2",
        "Truncated": "Input ends inside a field",
        "LengthField": "payloadLength short, long, zero or at its maximum",
        "Limits": "Maximum values: TTL 255, timestamp above 2^53, 255 route hops, payloadLength cap",
        "TrailingBytes": "Bytes after the frame that are not one PKCS#7 pad: the app ignores them, meshconform refuses them (BITCHAT-W7)",
        "UnknownType": "A type byte bitchat does not define still decodes; nodes ignore it",
        "AppBug": "The app accepts it (compression_decode_buffer stops at the buffer size, so a too-small original size truncates the payload silently); a conforming decoder must refuse it",
    }
    t = []
    # -- bitchat's own published frames (cross-check)
    for name, f, raw, p in published_cases():
        flags = ["Published"] + (["Route"] if "route" in f else []) + (["FlagsCombined"] if f.get("flags") else [])
        n = neutral(ts=SPEC_TS, sender=SPEC_SENDER, **f)
        if name in SPEC_UNPADDED or p == 0:
            t.append(V("published %s, unpadded (%d bytes)" % (name, len(raw)), raw, n, flags=flags))
        if p:
            n = dict(n, padding=p)
            t.append(V("published %s, padded to %d with %d bytes of 0x%02x" % (name, len(raw) + p, p, p),
                       pad(raw, p), n, flags=flags + ["Padded"]))
    # -- lengths and padding boundaries
    t.append(V("v1 broadcast, empty payload (payloadLength 0): the 22-byte minimum frame", frame(payload=b""),
               neutral(payload=b""), flags=["LengthField"]))
    for size in (240, 241, 496, 497):
        # Every byte value distinct as far as 256 allows: a payload the apps' senders never
        # compress (BITCHAT-W6's sender rule), so these are frames an app does send.
        payload = bytes((7 * i + 3) % 256 for i in range(size - 22))
        raw = frame(payload=payload)
        assert len(raw) == size
        p = bucket_pad(size)
        t.append(V("%d-byte frame: %s" % (size, "padded with %d bytes to %d" % (p, size + p) if p else "left unpadded (pad would exceed 255)"),
                   pad(raw, p), neutral(payload=payload, padding=p), flags=["PadBoundary"] + (["Padded"] if p else [])))
    t.append(V("payload ends in 0x01: raw-first decoding keeps it (unpad-first would cut it)",
               frame(payload=b"hello\x01"), neutral(payload=b"hello\x01"), flags=["RawFirst"]))
    t.append(V("signature ends in 02 02: raw-first decoding keeps all 64 bytes",
               frame(sig=SIG[:62] + b"\x02\x02", payload=b"x"), neutral(sig=SIG[:62] + b"\x02\x02", payload=b"x"),
               flags=["RawFirst", "FlagAlone"]))
    # -- each flag alone, and combined
    t.append(V("flag 0x01 alone: directed to BOB", frame(recipient=BOB, payload=b"hi"),
               neutral(recipient=BOB, payload=b"hi"), flags=["FlagAlone"]))
    t.append(V("flag 0x02 alone: 64-byte signature after the payload", frame(sig=SIG, payload=b"hi"),
               neutral(sig=SIG, payload=b"hi"), flags=["FlagAlone"]))
    text = b"bitchat mesh " * 20
    comp = deflate_raw(text)
    t.append(V("flag 0x04 alone: 260-byte payload, raw DEFLATE (what the app sends), original size u16",
               frame(payload=text, comp=comp), neutral(payload=text, comp=comp), flags=["FlagAlone", "Compressed"]))
    zcomp = deflate_zlib(text)
    t.append(A("compressed with a zlib header (78 9c ... adler32): bitchat Android takes it, bitchat iOS refuses it "
               "(raw DEFLATE only, CompressionUtil.swift:40-56@9b84b361); no app writes it",
               frame(payload=text, comp=zcomp), decoded=neutral(payload=text, comp=zcomp, comp_format="zlib"),
               flags=["Compressed", "Zlib"], apps={"bitchat-ios": "refuse", "bitchat-android": "accept"}))
    hops = [bytes([0xC0 + i]) * 8 for i in range(3)]
    t.append(V("flag 0x08 alone, v2: three-hop route, not counted in payloadLength",
               frame(version=2, route=hops, payload=b"hi"), neutral(version=2, route=hops, payload=b"hi"),
               flags=["FlagAlone", "Route"]))
    t.append(V("flag 0x10 alone (isRSR)", frame(flags=FLAG_RSR, payload=b"hi"), neutral(flags=FLAG_RSR, payload=b"hi"),
               flags=["FlagAlone"]))
    t.append(V("flag 0x08 in v1: ignored, no route is read (the app: route is v2 only); the apps' packet types keep no such bit, so a relay by bitchat iOS re-encodes it away (section 7 row 10)",
               frame(flags=FLAG_ROUTE, payload=b"hi"), neutral(flags=FLAG_ROUTE, payload=b"hi"), flags=["ReservedFlags"]))
    t.append(V("reserved bits 0xe0 set: ignored; the apps' packet types keep no such bits, so a relay by bitchat iOS re-encodes them away (section 7 row 10)", frame(flags=0xE0, payload=b"hi"), neutral(flags=0xE0, payload=b"hi"),
               flags=["ReservedFlags"]))
    t.append(V("v2, every flag: recipient, signature, raw DEFLATE (u32 original size), route, isRSR",
               frame(version=2, recipient=BOB, route=hops[:1], payload=text, comp=comp, sig=SIG,
                     flags=0x1F),
               neutral(version=2, recipient=BOB, route=hops[:1], payload=text, comp=comp, sig=SIG, flags=0x1F),
               flags=["FlagsCombined", "Compressed", "Route"]))
    # -- limits
    t.append(V("TTL 255, timestamp 2^64-1 (above 2^53), unknown type 0x7f",
               frame(type=0x7F, ttl=255, ts=2 ** 64 - 1, payload=b"z"), neutral(type=0x7F, ttl=255, ts=2 ** 64 - 1, payload=b"z"),
               flags=["Limits", "UnknownType"]))
    many = [struct.pack(">Q", i) for i in range(255)]
    t.append(V("v2 route with 255 hops (the maximum count)", frame(version=2, route=many, payload=b""),
               neutral(version=2, route=many, payload=b""), flags=["Limits", "Route"]))
    # -- invalid: one defect each
    ok = frame(payload=b"hi")
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("header only (14 bytes), sender missing", ok[:14], "truncated", flags=["Truncated"]))
    t.append(I("sender cut at 7 bytes", ok[:21], "truncated", flags=["Truncated"]))
    t.append(I("version 0", bytes([0]) + ok[1:], "unknownType", flags=["Version"]))
    t.append(I("version 3", bytes([3]) + ok[1:], "unknownType", flags=["Version"]))
    t.append(I("payloadLength long: 3 for a 2-byte payload", frame(payload=b"hi", length=3), "truncated", flags=["LengthField"]))
    t.append(I("payloadLength 0xffff (v1 maximum) with 2 bytes present", frame(payload=b"hi", length=0xFFFF), "truncated",
               flags=["LengthField", "Limits"]))
    t.append(I("v2 payloadLength 0xffffffff: above the 1 179 760-byte cap, refused before reading",
               frame(version=2, payload=b"hi", length=0xFFFFFFFF), "tooLarge", flags=["LengthField", "Limits"]))
    t.append(I("v2 payloadLength one above the cap, 2 bytes present: refused before reading, so only the code (tooLarge, not truncated) shows the cap; the compressed case below needs no code", frame(version=2, payload=b"hi", length=MAX_ORIGINAL + 1), "tooLarge",
               flags=["LengthField", "Limits"]))
    t.append(I("flag 0x01 but the frame ends inside the recipient", frame(recipient=BOB, payload=b"")[:26], "truncated",
               flags=["Truncated", "FlagAlone"]))
    t.append(I("flag 0x02 but the signature is 63 bytes", frame(sig=SIG, payload=b"hi")[:-1], "truncated",
               flags=["Truncated", "FlagAlone"]))
    t.append(I("route count 3 with two hops present", frame(version=2, route=hops[:2], route_count=3, payload=b""),
               "truncated", flags=["Route", "Truncated"]))
    t.append(I("compressed, payloadLength 2: nothing after the original size", frame(payload=text, comp=b""),
               "lengthMismatch", flags=["Compressed", "LengthField"]))
    t.append(I("compressed, payloadLength 1: shorter than the u16 original size",
               frame(flags=FLAG_COMPRESSED, payload=b"\x01", length=1), "lengthMismatch", flags=["Compressed", "LengthField"]))
    t.append(I("compressed, original size says 300, the stream inflates to 260",
               frame(payload=text, comp=comp, orig=300), "badCompression", flags=["Compressed", "LyingSize"]))
    t.append(I("compressed, original size says 200, the stream inflates to 260",
               frame(payload=text, comp=comp, orig=200), "badCompression", flags=["Compressed", "LyingSize", "AppBug"],
               apps={"bitchat-ios": "accept", "bitchat-android": "refuse"}))
    t.append(I("compressed, original size 0", frame(payload=text, comp=comp, orig=0), "badCompression",
               flags=["Compressed", "LyingSize"]))
    t.append(I("compressed, stream cut short (last 4 bytes dropped)", frame(payload=text, comp=comp[:-4]), "badCompression",
               flags=["Compressed"]))
    bad_adler = zcomp[:-1] + bytes([zcomp[-1] ^ 0xFF])
    t.append(I("zlib-wrapped stream with a wrong Adler-32", frame(payload=text, comp=bad_adler), "badCompression",
               flags=["Compressed", "Zlib"]))
    t.append(I("compressed, not DEFLATE at all (reserved block type 11)", frame(payload=text, comp=b"\xff" * 8),
               "badCompression", flags=["Compressed"]))
    t.append(I("ratio 50 001:1 (2-byte stream declaring 100 002 bytes, v2): refused before inflating",
               frame(version=2, payload=text, comp=b"\x03\x00", orig=100002), "ratioTooHigh", flags=["Compressed", "RatioCap"]))
    t.append(I("ratio exactly 50 000:1 passes the guard, but the stream does not inflate to 100 000 bytes",
               frame(version=2, payload=text, comp=b"\x03\x00", orig=100000), "badCompression", flags=["Compressed", "RatioCap", "LyingSize"]))
    # A stream that does inflate to one byte above the cap, under the ratio guard: the cap is its only defect.
    big = deflate_raw(bytes(MAX_ORIGINAL + 1))
    assert MAX_ORIGINAL + 1 <= 50000 * len(big)
    t.append(I("v2 original size one above the 1 179 760-byte cap, and the stream inflates to exactly that", frame(version=2, payload=text, comp=big, orig=MAX_ORIGINAL + 1),
               "tooLarge", flags=["Compressed", "Limits"]))
    t.append(A("route count 0 with the route flag (the app reads it as no route; the spec says 1...255)",
               frame(version=2, route=[], payload=b"hi"), error="valueOutOfRange", flags=["Route", "LengthField"],
               apps={"bitchat-ios": "accept", "bitchat-android": "accept"}))
    t.append(A("payloadLength short by one: the last payload byte is left over, not a pad",
               frame(payload=b"hi", length=1), error="trailingBytes", flags=["LengthField", "TrailingBytes"],
               apps={"bitchat-ios": "accept", "bitchat-android": "accept"}))
    t.append(A("three bytes 04 04 04 after the frame: not a valid pad", ok + b"\x04\x04\x04", error="trailingBytes",
               flags=["TrailingBytes"], apps={"bitchat-ios": "accept", "bitchat-android": "accept"}))
    t.append(A("compressed stream followed by a stray byte inside payloadLength (Apple's decoder stops at the stream end)",
               frame(payload=text, comp=comp + b"\x00"), error="badCompression", flags=["Compressed", "TrailingBytes"],
               apps={"bitchat-ios": "accept", "bitchat-android": "refuse"}))
    write_file("bitchat.packet", "bitchat", PUBLISHED + APP, notes, t)


def bitchat_fragment():
    notes = {
        "Split": "One of the fragments of a real 1 000-byte packet split at the app's 469-byte chunk size",
        "Limits": "total at its maximum (10 000) or index at total - 1",
        "Empty": "No data bytes after the 13-byte header",
        "IndexRange": "index not below total, or total outside 1...10 000",
        "Truncated": "Input ends inside the 13-byte header",
        "UnauthenticatedType": "originalType is not checked by the codec: receivers dispatch on the reassembled packet's own type",
    }
    inner_payload = bytes((i * 7) & 0xFF for i in range(1000 - 22 - 8 - 64))
    inner = frame(recipient=BOB, payload=inner_payload, sig=SIG)
    assert len(inner) == 1000
    fid = bytes.fromhex("f00df00d00000001")
    chunks = [inner[i:i + 469] for i in range(0, len(inner), 469)]

    def frag(fid_, index, total, otype, data):
        return fid_ + struct.pack(">HHB", index, total, otype) + data

    def nfrag(fid_, index, total, otype, data):
        return {"fragmentID": hexs(fid_), "index": index, "total": total, "originalType": otype, "data": hexs(data)}

    t = []
    for i, c in enumerate(chunks):
        t.append(V("fragment %d of %d of a 1 000-byte directed signed message (%d data bytes)" % (i, len(chunks), len(c)),
                   frag(fid, i, len(chunks), 0x02, c), nfrag(fid, i, len(chunks), 0x02, c), flags=["Split"]))
    t.append(V("single fragment (0 of 1)", frag(fid, 0, 1, 0x11, b"\x01\x02"), nfrag(fid, 0, 1, 0x11, b"\x01\x02")))
    t.append(A("index 9 999 of 10 000 (the maximum total): bitchat iOS takes it, bitchat Android refuses a total over 256 "
               "(FragmentManager.kt:191-195@09b481f1)", frag(fid, 9999, 10000, 0x22, b"\xaa"),
               decoded=nfrag(fid, 9999, 10000, 0x22, b"\xaa"), flags=["Limits"], apps={"bitchat-ios": "accept", "bitchat-android": "refuse"}))
    t.append(A("empty data: bitchat iOS takes it, bitchat Android refuses it (FragmentPayload.kt:123-129@09b481f1)",
               frag(fid, 1, 2, 0x02, b""), decoded=nfrag(fid, 1, 2, 0x02, b""), flags=["Empty"],
               apps={"bitchat-ios": "accept", "bitchat-android": "refuse"}))
    t.append(V("fragmentID all 0xff, all zero data", frag(b"\xff" * 8, 0, 2, 0x22, bytes(16)), nfrag(b"\xff" * 8, 0, 2, 0x22, bytes(16))))
    t.append(V("originalType 0x20 (a fragment claiming to carry a fragment): decoded, the node decides",
               frag(fid, 0, 2, 0x20, b"\x01"), nfrag(fid, 0, 2, 0x20, b"\x01"), flags=["UnauthenticatedType"]))
    t.append(V("originalType 0x99, not a bitchat type: decoded, the node decides", frag(fid, 0, 2, 0x99, b"\x01"),
               nfrag(fid, 0, 2, 0x99, b"\x01"), flags=["UnauthenticatedType"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("12 bytes: originalType missing", frag(fid, 0, 1, 0x02, b"")[:12], "truncated", flags=["Truncated"]))
    t.append(I("fragmentID cut at 5 bytes", fid[:5], "truncated", flags=["Truncated"]))
    t.append(I("total 0", frag(fid, 0, 0, 0x02, b"x"), "chunkIndexOutOfRange", flags=["IndexRange"]))
    t.append(I("total 10 001", frag(fid, 0, 10001, 0x02, b"x"), "chunkIndexOutOfRange", flags=["IndexRange", "Limits"]))
    t.append(I("index equal to total (3 of 3)", frag(fid, 3, 3, 0x02, b"x"), "chunkIndexOutOfRange", flags=["IndexRange"]))
    t.append(I("index 0xffff of 2", frag(fid, 0xFFFF, 2, 0x02, b"x"), "chunkIndexOutOfRange", flags=["IndexRange"]))
    t.append(I("total 0xffff", frag(fid, 0, 0xFFFF, 0x02, b"x"), "chunkIndexOutOfRange", flags=["IndexRange", "Limits"]))
    write_file("bitchat.fragment", "bitchat", "Valid bytes built by Vectors/generators/bitchat.py with Python's struct, "
               "independent of meshconform's Swift codecs; the split fragments carry a frame built the same way as the "
               "packets that bitchat.packet cross-checks against bitchat's published vectors. Layout from "
               "permissionlesstech/bitchat spec/02-ble-transport.md section 5 (fragment payload, limits) and "
               "BLEOutboundFragmentPlanner.swift (469-byte default chunk)", notes, t)


def main():
    bitchat_packet()
    bitchat_fragment()


if __name__ == "__main__":
    main()
