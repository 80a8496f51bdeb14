#!/usr/bin/env python3
"""Golden vectors of the relay dialect (SwiftMeshRelay, adrior11/SwiftMeshRelay).

Writes Vectors/relay.packet.json, relay.frame-header.json, relay.beacon.json, relay.ack.json,
relay.sealed.json. Deterministic: fixed keys, nonces, UUIDs; run it twice, get the same files.
"""

import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cryptography.exceptions import InvalidTag  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

from common import (A, I, Obj, Raw, UNIX_2025_05_03, V, fjson, hexs, uid,  # noqa: E402
                    uuid_from_bytes, u64, write_file)

APP = ("adrior11/SwiftMeshRelay (the README's clone URL says check24/SwiftMeshRelay): "
       "SwiftMeshRelay/Model/PacketType.swift (buildPacket, PacketType), SwiftMeshRelay/Frame/FrameHeader.swift, "
       "SwiftMeshRelay/Model/Beacon.swift, SwiftMeshRelay/Mesh/MeshService.swift (receive path, sendAck, "
       "handleAck, broadcastBeacon, seal/open), SwiftMeshRelay/Keychain/DataExtension.swift (sha256Prefix16)")

INDEPENDENT = ("Valid bytes built by Vectors/generators/relay.py with Python's struct, hashlib and the "
               "`cryptography` package, independent of the Swift codecs; JSON text written by "
               "generators/common.py, which emulates Foundation's JSONEncoder with .sortedKeys byte for byte "
               "(checked against swift-foundation, Swift 6.3). Cross-checked with generators/foundation_check.swift: "
               "every valid JSON header decodes with Foundation's JSONDecoder into structs mirroring the app's "
               "Codable types, and JSONEncoder(.sortedKeys) gives the canonical vectors' bytes exactly. Layout and types from ")

# ---------------------------------------------------------------- identities and crypto


def x25519_from_seed(label):
    """Fixed X25519 private key: the 32 raw bytes are SHA-256(label) (X25519 clamps them)."""
    seed = hashlib.sha256(label.encode()).digest()
    priv = X25519PrivateKey.from_private_bytes(seed)
    pub = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return seed, priv, pub


SENDER_SEED, SENDER, SENDER_PUB = x25519_from_seed("meshconform relay sender")
RECEIVER_SEED, RECEIVER, RECEIVER_PUB = x25519_from_seed("meshconform relay receiver")
OTHER_SEED, OTHER, OTHER_PUB = x25519_from_seed("meshconform relay third party")


def node_id(pub):
    """SwiftMeshRelay's myID: the first 16 bytes of SHA-256(raw public key), no RFC 4122 bits."""
    return uuid_from_bytes(hashlib.sha256(pub).digest()[:16])


SENDER_ID = node_id(SENDER_PUB)
RECEIVER_ID = node_id(RECEIVER_PUB)
OTHER_ID = node_id(OTHER_PUB)


def session_key(priv, peer_pub):
    shared = priv.exchange(X25519PublicKey.from_public_bytes(peer_pub))
    # CryptoKit hkdfDerivedSymmetricKey(using: SHA256, salt: Data(), sharedInfo: Data(), outputByteCount: 32).
    # An empty salt is HashLen zero bytes in RFC 5869 (HMAC pads the key with zeros either way).
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"", info=b"").derive(shared)


KEY = session_key(SENDER, RECEIVER_PUB)
assert KEY == session_key(RECEIVER, SENDER_PUB), "X25519 + HKDF must give one key for both directions"


def seal(plaintext, nonce, key=KEY):
    """ChaChaPoly.seal(...).combined = nonce(12) | ciphertext | tag(16), no associated data."""
    assert len(nonce) == 12
    return nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, None)


def nonce(n):
    return bytes(range(n, n + 12))


def sealed_decoded(box, plaintext=None):
    d = {"nonce": hexs(box[:12]), "ciphertext": hexs(box[12:-16]), "tag": hexs(box[-16:])}
    if plaintext is not None:
        d["plaintext"] = hexs(plaintext)
    return d


def opens(box, priv, peer_pub):
    try:
        ChaCha20Poly1305(session_key(priv, peer_pub)).decrypt(box[:12], box[12:], None)
        return True
    except InvalidTag:
        return False


# ---------------------------------------------------------------- headers and packets

SEQ_REAL = struct.unpack(">Q", struct.pack(">d", float(UNIX_2025_05_03)))[0]
assert SEQ_REAL == 4745111029145403392 == 0x41DA055720000000
U64_MAX = 2 ** 64 - 1
F, ACK, B = 0x46, 0x61, 0x42


def header(origin=SENDER_ID, dest=RECEIVER_ID, ttl=8, seq=SEQ_REAL):
    return {"origin": origin, "dest": dest, "ttl": ttl, "seq": seq}


def header_neutral(origin=SENDER_ID, dest=RECEIVER_ID, ttl=8, seq=SEQ_REAL):
    return {"origin": origin.upper(), "dest": dest.upper(), "ttl": ttl, "seq": u64(seq)}


def beacon(origin=SENDER_ID, seqNo=1, ttl=8, hop=0):
    return {"origin": origin, "seqNo": seqNo, "ttl": ttl, "hop": hop}


def packet(ptype, hdr, body=b"", length=None):
    return struct.pack(">BH", ptype, len(hdr) if length is None else length) + hdr + body


HELLO = "hello over the mesh".encode()
BODY = seal(HELLO, nonce(1))
HDR = fjson(header())


def frame_neutral(body=BODY, **kw):
    return {"type": "frame", "header": header_neutral(**kw), "body": hexs(body)}


# ---------------------------------------------------------------- relay.packet

def relay_packet():
    notes = {
        "Truncated": "The packet ends before its 3-byte fixed part (type u8, headerLen u16 BE) or before "
                     "the headerLen bytes of header it announces.",
        "HeaderLenShort": "headerLen is smaller than the JSON header: the JSON is cut (lengthMismatch) and "
                          "its last bytes would be misread as body.",
        "UnknownType": "A type byte other than 'F' 0x46, 'a' 0x61, 'B' 0x42.",
        "Ttl": "TTL edge values: 0, 1 (a forwarder drops the frame but a receiver still decodes it), 255, 256.",
        "Above2^53": "seq is the IEEE-754 bit pattern of createdAt.timeIntervalSince1970, above 2^53: "
                     "a double-based JSON number parser loses it.",
        "BeaconAsFrame": "WIRE-FACTS bug: the app sends its Beacon JSON with packet type 'F' (the 0x42 case is "
                         "commented out), so receivers fail to decode it as a FrameHeader (no dest, no seq).",
        "AckLength": "An ack header must be exactly 8 bytes (the app's handleAck checks only this).",
        "BodyNotAllowed": "An ack or beacon packet with bytes after its header; the app's receive path does "
                          "not check (body = the rest, MeshService.swift:380-381@38e7a7e2) but knows no beacon "
                          "type; a conforming decoder refuses them (trailingBytes).",
        "AppBug": "The app accepts it (relay.md section 7, row 8: its receive path takes the rest as the body, "
              "MeshService.swift:380-381@38e7a7e2); "
                  "a conforming decoder must refuse it.",
        "NonCanonical": "Valid but not what a canonical encoder writes: keys not sorted, lowercase UUID, "
                        "`8.0` for 8, whitespace, unknown key; decoders must accept it.",
        "DuplicateKey": "A JSON key given twice: Foundation's JSONDecoder takes the first value "
                        "(checked on swift-foundation), meshconform refuses it.",
        "EmptyBody": "A frame with no body (the app would fail to open it; the framing is still valid).",
    }
    S = SENDER_ID
    t = []
    t.append(V("frame, ttl 8 (MeshConfig.defaultTTL), seq from createdAt 1746230400.0, body = ChaChaPoly "
               "combined of 'hello over the mesh' (relay.sealed tcId 1)",
               packet(F, HDR, BODY), frame_neutral(), flags=["Above2^53"]))
    t.append(V("frame, keys in declaration order origin,dest,ttl,seq (what the app's plain JSONEncoder writes "
               "on iOS 17+ swift-foundation)",
               packet(F, fjson(header(), sort=False), BODY), frame_neutral(), canonical=False,
               flags=["NonCanonical", "Above2^53"]))
    for ttl in (255, 0, 1):
        t.append(V("frame, ttl %d" % ttl, packet(F, fjson(header(ttl=ttl)), BODY), frame_neutral(ttl=ttl),
                   flags=["Ttl", "Above2^53"]))
    t.append(V("frame, seq = UInt64.max", packet(F, fjson(header(seq=U64_MAX)), BODY),
               frame_neutral(seq=U64_MAX), flags=["Above2^53"]))
    t.append(V("frame with an empty body", packet(F, HDR), frame_neutral(body=b""),
               flags=["EmptyBody", "Above2^53"]))
    t.append(V("frame, lowercase UUIDs in the header (Foundation accepts them)",
               packet(F, fjson(header(origin=S.lower(), dest=RECEIVER_ID.lower())), BODY), frame_neutral(),
               canonical=False, flags=["NonCanonical", "Above2^53"]))
    t.append(V("ack for seq 4745111029145403392: 61 0008 + seq u64 BE, empty body, 11 bytes",
               packet(ACK, struct.pack(">Q", SEQ_REAL)), {"type": "ack", "header": {"seq": u64(SEQ_REAL)}},
               flags=["Above2^53"]))
    t.append(V("beacon with its intended type 'B' 0x42, seqNo 1, ttl 8, hop 0 (as broadcastBeacon builds it)",
               packet(B, fjson(beacon())), {"type": "beacon", "header": beacon()}))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("1 byte: type only", bytes([F]), "truncated", flags=["Truncated"]))
    t.append(I("2 bytes: type and half of headerLen", bytes([F, 0]), "truncated", flags=["Truncated"]))
    t.append(I("3 bytes: headerLen 16 but no header", bytes([F, 0, 16]), "truncated", flags=["Truncated"]))
    t.append(I("headerLen one past the end (header complete, no body)", packet(F, HDR, length=len(HDR) + 1),
               "truncated", flags=["Truncated"]))
    t.append(I("headerLen one short: the JSON header loses its '}' (which would become the body)",
               packet(F, HDR, length=len(HDR) - 1), "lengthMismatch", flags=["HeaderLenShort"]))
    t.append(I("exactly 3 bytes, headerLen 0: an empty header is not JSON (the app requires > 3 bytes)",
               bytes([F, 0, 0]), "lengthMismatch", flags=["HeaderLenShort"]))
    t.append(I("unknown type 0x58 'X' with a valid frame header and body", packet(0x58, HDR, BODY),
               "unknownType", flags=["UnknownType"]))
    t.append(I("unknown type 0x66 'f' (lowercase F)", packet(0x66, HDR, BODY), "unknownType",
               flags=["UnknownType"]))
    t.append(I("frame, ttl 256 (UInt8 overflow)", packet(F, fjson(header(ttl=256)), BODY), "ttlOutOfRange",
               flags=["Ttl"]))
    t.append(I("beacon JSON sent with type 'F', as the app really does: not a FrameHeader (dest missing)",
               packet(F, fjson(beacon())), "missingField", flags=["BeaconAsFrame"]))
    t.append(I("ack header of 7 bytes", packet(ACK, struct.pack(">Q", SEQ_REAL)[1:]), "lengthMismatch",
               flags=["AckLength"]))
    t.append(I("ack header of 9 bytes", packet(ACK, b"\x00" + struct.pack(">Q", SEQ_REAL)), "lengthMismatch",
               flags=["AckLength"]))
    t.append(I("ack with a 4-byte body after its 8-byte header", packet(ACK, struct.pack(">Q", SEQ_REAL),
               b"\xde\xad\xbe\xef"), "trailingBytes", flags=["BodyNotAllowed", "AppBug"]))
    # The app refuses every 'B' packet (PacketType.swift:31-35@38e7a7e2 has no 0x42), so this one
    # is no app bug.
    t.append(I("beacon ('B') with a body after its JSON header", packet(B, fjson(beacon()), b"\x00"),
               "trailingBytes", flags=["BodyNotAllowed"]))
    t.append(I("frame header not JSON", packet(F, b"\x01\x02\x03\x04", BODY), "badJSON"))
    t.append(I("frame header is a JSON array", packet(F, fjson([S, RECEIVER_ID, 8, SEQ_REAL]), BODY),
               "wrongType"))
    dup = fjson(Obj(("dest", RECEIVER_ID), ("origin", S), ("seq", SEQ_REAL), ("ttl", 8), ("ttl", 9)))
    t.append(A("frame header with ttl twice (8 then 9)", packet(F, dup, BODY), error="duplicateKey",
               flags=["DuplicateKey"]))
    src = (INDEPENDENT + APP + ". Ack and beacon cases follow sendAck and broadcastBeacon; the "
           "BeaconAsFrame case is the packet broadcastBeacon really sends.")
    write_file("relay.packet", "relay", src, notes, t)


# ---------------------------------------------------------------- relay.frame-header

def relay_frame_header():
    notes = {
        "NonCanonical": "Valid but not the canonical bytes (sorted keys, no whitespace, uppercase UUIDs, "
                        "integers without fraction or exponent); decoders must accept it.",
        "UnknownKey": "A key FrameHeader does not have: ignored by JSONDecoder, dropped from decoded.",
        "Ttl": "ttl at or beyond the edges of UInt8.",
        "Above2^53": "seq above 2^53: must be read as an exact UInt64, never through a Double.",
        "IntegerForm": "An integer written as 8.0 (Foundation accepts it exactly) or 8.5 (not an integer).",
        "DuplicateKey": "A key given twice: Foundation's JSONDecoder takes the first value, meshconform refuses.",
        "Truncated": "Empty input or JSON that stops mid-value (an MTU or headerLen cut).",
        "WrongType": "A field or the whole message holds the wrong kind of JSON value (null in a required "
                     "field, string for a number, array for the object).",
        "BadUUID": "A UUID field that is not 8-4-4-4-12 hex.",
    }
    S, R = SENDER_ID, RECEIVER_ID
    N = header_neutral
    t = []
    t.append(V("canonical header: ttl 8, seq from createdAt 1746230400.0 (0x41DA055720000000)", HDR, N(),
               flags=["Above2^53"]))
    t.append(V("declaration order origin,dest,ttl,seq (the app's plain JSONEncoder on swift-foundation)",
               fjson(header(), sort=False), N(), canonical=False, flags=["NonCanonical", "Above2^53"]))
    t.append(V("ttl 0", fjson(header(ttl=0)), N(ttl=0), flags=["Ttl", "Above2^53"]))
    t.append(V("ttl 1", fjson(header(ttl=1)), N(ttl=1), flags=["Ttl", "Above2^53"]))
    t.append(V("ttl 255", fjson(header(ttl=255)), N(ttl=255), flags=["Ttl", "Above2^53"]))
    t.append(V("seq UInt64.max", fjson(header(seq=U64_MAX)), N(seq=U64_MAX), flags=["Above2^53"]))
    t.append(V("seq 2^53 + 1 (a Double rounds it to 2^53)", fjson(header(seq=2 ** 53 + 1)), N(seq=2 ** 53 + 1),
               flags=["Above2^53"]))
    t.append(V("seq 0", fjson(header(seq=0)), N(seq=0)))
    t.append(V("lowercase UUIDs", fjson(header(origin=S.lower(), dest=R.lower())), N(), canonical=False,
               flags=["NonCanonical", "Above2^53"]))
    t.append(V("ttl written 8.0", fjson(Obj(("dest", R), ("origin", S), ("seq", SEQ_REAL), ("ttl", Raw("8.0")))),
               N(), canonical=False, flags=["NonCanonical", "IntegerForm", "Above2^53"]))
    t.append(V("unknown key \"via\" (dropped)", fjson(dict(header(), via=OTHER_ID)), N(), canonical=False,
               flags=["NonCanonical", "UnknownKey", "Above2^53"]))
    t.append(V("whitespace around tokens",
               b' { "dest" : "%s" ,\n "origin" : "%s" ,\t"seq" : %d , "ttl" : 8 } ' % (R.encode(), S.encode(),
                                                                                   SEQ_REAL),
               N(), canonical=False, flags=["NonCanonical", "Above2^53"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("JSON without its closing brace", HDR[:-1], "truncated",
               flags=["Truncated"]))
    t.append(I("JSON cut inside the origin UUID string", HDR[:HDR.index(b'"origin"') + 20], "truncated",
               flags=["Truncated"]))
    t.append(I("not JSON: 'dest=...' text", b"dest=" + R.encode(), "badJSON"))
    t.append(I("bytes after the JSON object", HDR + b"x", "badJSON"))
    t.append(I("a JSON array instead of an object", fjson([S, R, 8, SEQ_REAL]), "wrongType", flags=["WrongType"]))
    t.append(I("seq missing", fjson({"origin": S, "dest": R, "ttl": 8}), "missingField"))
    t.append(I("origin null", fjson(header(origin=None)), "wrongType", flags=["WrongType"]))
    t.append(I("ttl 256", fjson(header(ttl=256)), "ttlOutOfRange", flags=["Ttl"]))
    t.append(I("ttl -1", fjson(header(ttl=-1)), "ttlOutOfRange", flags=["Ttl"]))
    t.append(I("ttl 8.5", fjson(header(ttl=Raw("8.5"))), "wrongType", flags=["IntegerForm"]))
    t.append(I("seq as a decimal string", fjson(header(seq=str(SEQ_REAL))), "wrongType", flags=["WrongType"]))
    t.append(I("seq 2^64 (UInt64.max + 1)", fjson(header(seq=2 ** 64)), "valueOutOfRange", flags=["Above2^53"]))
    t.append(I("seq -1", fjson(header(seq=-1)), "valueOutOfRange"))
    t.append(I("origin: 32 hex digits without dashes", fjson(header(origin=S.replace("-", ""))), "badUUID",
               flags=["BadUUID"]))
    t.append(I("dest with a non-hex letter", fjson(header(dest="G" + R[1:])), "badUUID", flags=["BadUUID"]))
    t.append(I("dest in braces", fjson(header(dest="{" + R + "}")), "badUUID", flags=["BadUUID"]))
    t.append(I("33 nested arrays in ttl", fjson(header(ttl=Raw("[" * 33 + "]" * 33))), "tooDeep"))
    t.append(A("seq given twice (first value the real one)",
               fjson(Obj(("dest", R), ("origin", S), ("seq", SEQ_REAL), ("seq", 1), ("ttl", 8))),
               error="duplicateKey", flags=["DuplicateKey"]))
    src = INDEPENDENT + APP + " (struct FrameHeader {origin: UUID, dest: UUID, ttl: UInt8, seq: UInt64})."
    write_file("relay.frame-header", "relay", src, notes, t)


# ---------------------------------------------------------------- relay.beacon

def relay_beacon():
    notes = {
        "NonCanonical": "Valid but not the canonical bytes; decoders must accept it.",
        "Range": "seqNo (UInt32), ttl and hop (UInt8) at or beyond their limits.",
        "FrameAsBeacon": "A FrameHeader read as a Beacon (the reverse of the app's BeaconAsFrame bug): no seqNo.",
        "Truncated": "Empty input or JSON cut mid-value.",
        "DuplicateKey": "A key given twice: Foundation takes the first, meshconform refuses.",
    }
    S = SENDER_ID
    t = []
    t.append(V("canonical beacon: seqNo 1, ttl 8, hop 0 (the first beacon broadcastBeacon sends)",
               fjson(beacon()), beacon()))
    t.append(V("declaration order origin,seqNo,ttl,hop (the app's plain JSONEncoder)", fjson(beacon(), sort=False),
               beacon(), canonical=False, flags=["NonCanonical"]))
    t.append(V("seqNo UInt32.max", fjson(beacon(seqNo=2 ** 32 - 1)), beacon(seqNo=2 ** 32 - 1), flags=["Range"]))
    t.append(V("ttl 255, hop 255", fjson(beacon(ttl=255, hop=255)), beacon(ttl=255, hop=255), flags=["Range"]))
    t.append(V("rebroadcast form: ttl 7, hop 1", fjson(beacon(seqNo=42, ttl=7, hop=1)), beacon(seqNo=42, ttl=7, hop=1)))
    t.append(V("seqNo 0, ttl 0", fjson(beacon(seqNo=0, ttl=0)), beacon(seqNo=0, ttl=0), flags=["Range"]))
    t.append(V("lowercase origin", fjson(beacon(origin=S.lower())), beacon(), canonical=False, flags=["NonCanonical"]))
    t.append(V("unknown key \"seq\" (the README's name for seqNo) besides seqNo", fjson(dict(beacon(), seq=5)),
               beacon(), canonical=False, flags=["NonCanonical"]))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("cut after the hop value", fjson(beacon())[:8], "truncated", flags=["Truncated"]))
    t.append(I("a FrameHeader instead of a Beacon", HDR, "missingField", flags=["FrameAsBeacon"]))
    t.append(I("seqNo 2^32", fjson(beacon(seqNo=2 ** 32)), "valueOutOfRange", flags=["Range"]))
    t.append(I("seqNo -1", fjson(beacon(seqNo=-1)), "valueOutOfRange", flags=["Range"]))
    t.append(I("ttl 256", fjson(beacon(ttl=256)), "ttlOutOfRange", flags=["Range"]))
    t.append(I("hop 256", fjson(beacon(hop=256)), "ttlOutOfRange", flags=["Range"]))
    t.append(I("hop 1.5", fjson(beacon(hop=Raw("1.5"))), "wrongType"))
    t.append(I("seqNo null", fjson(beacon(seqNo=None)), "wrongType"))
    t.append(I("origin not a UUID", fjson(beacon(origin="not-a-uuid")), "badUUID"))
    t.append(I("not JSON", b"\xff\xfe", "badJSON"))
    t.append(A("hop given twice", fjson(Obj(("hop", 0), ("hop", 1), ("origin", S), ("seqNo", 1), ("ttl", 8))),
               error="duplicateKey", flags=["DuplicateKey"]))
    src = INDEPENDENT + APP + " (struct Beacon {origin: UUID, seqNo: UInt32, ttl: UInt8, hop: UInt8})."
    write_file("relay.beacon", "relay", src, notes, t)


# ---------------------------------------------------------------- relay.ack

def relay_ack():
    notes = {
        "Above2^53": "A seq above 2^53 (real seqs are Double bit patterns, about 4.7e18).",
        "AckLength": "Not exactly 8 bytes: the ack header is a fixed-size field, so any other length is "
                     "lengthMismatch (empty input included).",
    }
    t = []
    for comment, seq in (("seq from createdAt 1746230400.0", SEQ_REAL),
                         ("seq from createdAt 1746230400.5",
                          struct.unpack(">Q", struct.pack(">d", UNIX_2025_05_03 + 0.5))[0]),
                         ("seq 2^53 + 1", 2 ** 53 + 1), ("seq UInt64.max", U64_MAX), ("seq 2^63", 2 ** 63)):
        t.append(V(comment, struct.pack(">Q", seq), {"seq": u64(seq)}, flags=["Above2^53"]))
    t.append(V("seq 0 (createdAt 0.0, 1970-01-01)", struct.pack(">Q", 0), {"seq": "0"}))
    t.append(V("seq 1", struct.pack(">Q", 1), {"seq": "1"}))
    t.append(I("empty", b"", "lengthMismatch", flags=["AckLength"]))
    t.append(I("1 byte", b"\x41", "lengthMismatch", flags=["AckLength"]))
    t.append(I("7 bytes", struct.pack(">Q", SEQ_REAL)[:7], "lengthMismatch", flags=["AckLength"]))
    t.append(I("9 bytes", struct.pack(">Q", SEQ_REAL) + b"\x00", "lengthMismatch", flags=["AckLength"]))
    t.append(I("16 bytes (two seqs)", struct.pack(">QQ", SEQ_REAL, 1), "lengthMismatch", flags=["AckLength"]))
    src = ("Valid bytes built by Vectors/generators/relay.py with Python's struct (independent of the Swift codecs): "
           "seq as u64 big-endian, as sendAck writes `withUnsafeBytes(of: header.seq.bigEndian, Array.init)`; "
           "handleAck requires exactly 8 bytes. From " + APP + ".")
    write_file("relay.ack", "relay", src, notes, t)


# ---------------------------------------------------------------- relay.sealed

def relay_sealed():
    ctx = {"privateKey": hexs(RECEIVER_SEED), "peerPublicKey": hexs(SENDER_PUB)}
    ctx_rev = {"privateKey": hexs(SENDER_SEED), "peerPublicKey": hexs(RECEIVER_PUB)}
    ctx_wrong = {"privateKey": hexs(OTHER_SEED), "peerPublicKey": hexs(SENDER_PUB)}
    notes = {
        "Context": "The vector has a context {privateKey: the receiver's X25519 private key, peerPublicKey: "
                   "the sender's public key}, so the decoder derives the key and opens the box; decoded has "
                   "plaintext. Keys: sender private = SHA-256('meshconform relay sender') = %s, public %s, node id "
                   "%s; receiver private = SHA-256('meshconform relay receiver') = %s, public %s, node id %s; "
                   "third party private = SHA-256('meshconform relay third party') = %s, public %s. Node id = "
                   "first 16 bytes of SHA-256(raw public key) as a UUID. Session key = HKDF-SHA256(X25519 shared "
                   "secret, salt empty, info empty, 32 bytes) = %s." % (
                       hexs(SENDER_SEED), hexs(SENDER_PUB), SENDER_ID, hexs(RECEIVER_SEED), hexs(RECEIVER_PUB),
                       RECEIVER_ID, hexs(OTHER_SEED), hexs(OTHER_PUB), hexs(KEY)),
        "NoContext": "No keys given: the decoder only splits nonce(12) | ciphertext | tag(16); no authentication.",
        "Direction": "X25519 is symmetric: receiver-private with sender-public gives the same key as "
                     "sender-private with receiver-public, so one key serves both directions (and a reply "
                     "sealed by the receiver opens with the sender's private key).",
        "Tampered": "One bit flipped in the nonce, ciphertext or tag: the Poly1305 tag fails.",
        "WrongKey": "Opened with a third party's private key.",
        "Truncated": "Shorter than nonce(12) + tag(16) = 28 bytes.",
        "BadKey": "Context key material unusable: not 32 bytes, or a low-order public key (all zeros) whose "
                  "shared secret is zero (CryptoKit / BoringSSL and the `cryptography` package refuse it).",
        "EmptyPlaintext": "An empty plaintext: exactly 28 bytes.",
    }
    t = []

    def flip(b, i):
        b = bytearray(b)
        b[i] ^= 0x01
        return bytes(b)

    t.append(V("'hello over the mesh', nonce 01..0c (the body of relay.packet tcId 1)", BODY,
               sealed_decoded(BODY, HELLO), flags=["Context"], context=ctx))
    empty = seal(b"", nonce(0x20))
    assert len(empty) == 28
    t.append(V("empty plaintext: 28 bytes, nonce and tag only", empty, sealed_decoded(empty, b""),
               flags=["Context", "EmptyPlaintext"], context=ctx))
    t.append(V("same bytes as tcId 1 without context: structure only", BODY, sealed_decoded(BODY),
               flags=["NoContext"]))
    t.append(V("empty plaintext without context", empty, sealed_decoded(empty), flags=["NoContext", "EmptyPlaintext"]))
    reply = seal("reply: got it".encode(), nonce(0x40))
    t.append(V("reply from the receiver to the sender, opened with the sender's private key (same session key)",
               reply, sealed_decoded(reply, "reply: got it".encode()), flags=["Context", "Direction"], context=ctx_rev))
    t.append(V("the receiver's own sealed reply opened with its private key and the sender's public key",
               reply, sealed_decoded(reply, "reply: got it".encode()), flags=["Context", "Direction"], context=ctx))
    utf = "Grüße aus dem Mesh 👋".encode("utf-8")
    boxu = seal(utf, nonce(0x60))
    t.append(V("non-ASCII UTF-8 plaintext", boxu, sealed_decoded(boxu, utf), flags=["Context"], context=ctx))
    long_pt = bytes(range(256)) * 2
    boxl = seal(long_pt, nonce(0x80))
    t.append(V("512-byte binary plaintext", boxl, sealed_decoded(boxl, long_pt), flags=["Context"], context=ctx))
    t.append(V("tampered tag but no context: splits fine (nothing to verify with)", flip(BODY, len(BODY) - 1),
               sealed_decoded(flip(BODY, len(BODY) - 1)), flags=["NoContext", "Tampered"]))
    for comment, i in (("ciphertext", 12 + 3), ("tag", len(BODY) - 1), ("nonce", 0)):
        bad = flip(BODY, i)
        assert not opens(bad, RECEIVER, SENDER_PUB)
        t.append(I("tcId 1 with one bit of the %s flipped" % comment, bad, "authenticationFailed",
                   flags=["Context", "Tampered"], context=ctx))
    assert not opens(BODY, OTHER, SENDER_PUB)
    t.append(I("tcId 1 opened by a third party (its private key, the sender's public key)", BODY,
               "authenticationFailed", flags=["Context", "WrongKey"], context=ctx_wrong))
    t.append(I("empty-plaintext box with a flipped tag bit", flip(empty, 27), "authenticationFailed",
               flags=["Context", "Tampered", "EmptyPlaintext"], context=ctx))
    t.append(I("empty input", b"", "truncated", flags=["Truncated"]))
    t.append(I("12 bytes: nonce only", BODY[:12], "truncated", flags=["Truncated"]))
    t.append(I("27 bytes: one short of nonce + tag", empty[:27], "truncated", flags=["Truncated"]))
    t.append(I("12 bytes without context", nonce(0x20), "truncated", flags=["Truncated", "NoContext"]))
    t.append(I("private key of 31 bytes", BODY, "badKey", flags=["Context", "BadKey"],
               context={"privateKey": hexs(RECEIVER_SEED[:31]), "peerPublicKey": hexs(SENDER_PUB)}))
    t.append(I("peer public key of 33 bytes", BODY, "badKey", flags=["Context", "BadKey"],
               context={"privateKey": hexs(RECEIVER_SEED), "peerPublicKey": hexs(SENDER_PUB + b"\x00")}))
    t.append(I("peer public key all zeros (low-order point, zero shared secret)", BODY, "badKey",
               flags=["Context", "BadKey"], context={"privateKey": hexs(RECEIVER_SEED), "peerPublicKey": "00" * 32}))
    src = ("Valid bytes built by Vectors/generators/relay.py with the Python `cryptography` package (X25519, "
           "HKDF-SHA256, ChaCha20-Poly1305), independent of the Swift codecs and of CryptoKit: "
           "X25519 keys from fixed 32-byte seeds, HKDF-SHA256(shared secret, salt empty, info empty, 32 bytes) "
           "as CryptoKit's hkdfDerivedSymmetricKey(using: SHA256.self, salt: Data(), sharedInfo: Data(), "
           "outputByteCount: 32), ChaChaPoly combined = nonce(12) | ciphertext | tag(16), no associated data, "
           "fixed nonces instead of the app's random ones. Cross-checked in swift test by opening them with "
           "swift-crypto. From " + APP + ".")
    write_file("relay.sealed", "relay", src, notes, t)


def main():
    relay_packet()
    relay_frame_header()
    relay_beacon()
    relay_ack()
    relay_sealed()


if __name__ == "__main__":
    main()
