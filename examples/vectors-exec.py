#!/usr/bin/env python3
"""A minimal external decoder for `meshconform vectors --exec` (protocol: docs/vectors.md).

It implements the relay dialect's formats independently of meshconform's Swift codecs, in
plain Python, to show what another implementation has to do to run the golden vectors in
its own CI:

    meshconform vectors --exec "python3 examples/vectors-exec.py"

Other formats answer {"unsupported": true} and are reported as skipped. The sealed body
needs the `cryptography` package; without it relay.sealed is unsupported too.
"""
import decimal
import json
import math
import struct
import sys
import uuid

try:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
except ImportError:  # pragma: no cover
    ChaCha20Poly1305 = None


class Refused(Exception):
    def __init__(self, code):
        self.code = code


def parse_json(raw):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("badJSON")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise Refused("duplicateKey")
        return dict(pairs)

    def finite(number):
        # Foundation refuses a whole message holding a number that overflows a Double.
        if math.isinf(float(number)):
            raise Refused("valueOutOfRange")
        return number

    def no_constants(name):
        raise Refused("badJSON")

    if nesting_depth(text) > 32:
        raise Refused("tooDeep")
    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants,
                          parse_float=lambda s: ("float", finite(s)), parse_int=lambda s: int(finite(s)))
    except json.JSONDecodeError as e:
        ends_early = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        raise Refused("truncated" if ends_early else "badJSON")


def nesting_depth(text):
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            in_string = escaped or c != '"'
            escaped = not escaped and c == "\\"
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def obj(value):
    if not isinstance(value, dict):
        raise Refused("wrongType")
    return value


def field(o, key):
    if key not in o:
        raise Refused("missingField")
    if o[key] is None:
        raise Refused("wrongType")
    return o[key]


def integer(o, key, lo, hi, range_code="valueOutOfRange"):
    v = field(o, key)
    if isinstance(v, tuple):  # a number with a fraction or exponent: 8.0 is 8, 8.5 is not an integer
        d = decimal.Decimal(v[1])
        if d.adjusted() > 25:  # far beyond any field; do not build a huge int
            raise Refused(range_code)
        if d != d.to_integral_value():
            raise Refused("wrongType")
        v = int(d)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Refused("wrongType")
    if not lo <= v <= hi:
        raise Refused(range_code)
    return v


def uuid_text(o, key):
    v = field(o, key)
    if not isinstance(v, str):
        raise Refused("wrongType")
    if len(v) != 36 or v.count("-") != 4 or [len(p) for p in v.split("-")] != [8, 4, 4, 4, 12]:
        raise Refused("badUUID")
    try:
        return str(uuid.UUID(v)).upper()
    except ValueError:
        raise Refused("badUUID")


def frame_header(raw):
    o = obj(parse_json(raw))
    return {"origin": uuid_text(o, "origin"), "dest": uuid_text(o, "dest"),
            "ttl": integer(o, "ttl", 0, 255, "ttlOutOfRange"), "seq": str(integer(o, "seq", 0, 2**64 - 1))}


def beacon(raw):
    o = obj(parse_json(raw))
    return {"origin": uuid_text(o, "origin"), "seqNo": integer(o, "seqNo", 0, 2**32 - 1),
            "ttl": integer(o, "ttl", 0, 255, "ttlOutOfRange"), "hop": integer(o, "hop", 0, 255, "ttlOutOfRange")}


def ack(raw):
    if len(raw) != 8:
        raise Refused("lengthMismatch")
    return {"seq": str(struct.unpack(">Q", raw)[0])}


def packet(raw):
    if len(raw) < 1:
        raise Refused("truncated")
    kind = raw[0]
    if kind not in (0x46, 0x61, 0x42):
        raise Refused("unknownType")
    if len(raw) < 3:
        raise Refused("truncated")
    (length,) = struct.unpack(">H", raw[1:3])
    if len(raw) < 3 + length:
        raise Refused("truncated")
    header, body = raw[3:3 + length], raw[3 + length:]
    if kind == 0x61:
        decoded = ack(header)
        if body:
            raise Refused("trailingBytes")
        return {"type": "ack", "header": decoded}
    parse = frame_header if kind == 0x46 else beacon
    try:
        decoded = parse(header)
    except Refused as r:
        raise Refused("lengthMismatch" if r.code == "truncated" else r.code)
    if kind == 0x46:
        return {"type": "frame", "header": decoded, "body": body.hex()}
    if body:
        raise Refused("trailingBytes")
    return {"type": "beacon", "header": decoded}


def sealed(raw, context):
    if len(raw) < 28:
        raise Refused("truncated")
    nonce, ciphertext, tag = raw[:12], raw[12:-16], raw[-16:]
    decoded = {"nonce": nonce.hex(), "ciphertext": ciphertext.hex(), "tag": tag.hex()}
    if context is not None:
        try:
            private = X25519PrivateKey.from_private_bytes(bytes.fromhex(context["privateKey"]))
            public = X25519PublicKey.from_public_bytes(bytes.fromhex(context["peerPublicKey"]))
            shared = private.exchange(public)
        except (ValueError, KeyError):
            raise Refused("badKey")
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"").derive(shared)
        try:
            decoded["plaintext"] = ChaCha20Poly1305(key).decrypt(nonce, ciphertext + tag, None).hex()
        except InvalidTag:
            raise Refused("authenticationFailed")
    return decoded


DECODERS = {
    "relay.packet": lambda raw, ctx: packet(raw),
    "relay.frame-header": lambda raw, ctx: frame_header(raw),
    "relay.beacon": lambda raw, ctx: beacon(raw),
    "relay.ack": lambda raw, ctx: ack(raw),
}
if ChaCha20Poly1305 is not None:
    DECODERS["relay.sealed"] = sealed


def answer(request):
    decode = DECODERS.get(request.get("format"))
    if decode is None:
        return {"unsupported": True}
    try:
        return {"decoded": decode(bytes.fromhex(request["hex"]), request.get("context"))}
    except Refused as r:
        return {"error": r.code}


def main():
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
