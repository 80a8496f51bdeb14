#!/usr/bin/env python3
"""A `blemesh` node for meshconform to test, speaking the stdio DUT protocol (docs/stdio-dut.md).

    meshconform run --dialect blemesh --dut-exec "python3 examples/blemesh-dut.py" \
                    --capabilities examples/blemesh-dut.capabilities.json
    meshconform fuzz --dialect blemesh --dut-exec "python3 examples/blemesh-dut.py --bug flags-hang" \
                    --capabilities examples/blemesh-dut.capabilities.json

Written from docs/dialects/blemesh.md alone (not from meshconform's Swift code): strict decoding
of chunks, envelopes and control messages (BLEMESH-W1 to W5), reassembly per (link, messageID)
(R4), de-duplication (R5), dispatch (R6) and relaying with TTL - 1, the hop path extended, split
horizon, fan-out and jitter, re-chunked (R3, R7, R8, R10). It does not route, ack, announce or
originate (R11 to R18: no upper tester, and the capabilities say so), so it is a relay to test
and fuzz. Timers run on this process's clock, or on the tester's when `start` asks for it.

--bug NAME plants one bug a real app could have (several may be given), each a crash or hang
that meshconform's over-the-air fuzzer must find (docs/fuzzing.md, "Planted bugs in the example
DUTs"):
  int64-index      a chunk whose chunkIndex or totalChunks is beyond a signed 64-bit integer:
                   packed into an Int64 before the range check (boundary integer)
  total-max        a chunk whose totalChunks is 1024, the page's maximum: the slot table of 1024
                   entries is indexed by the total (maximal count field)
  hoppath-overflow an envelope reassembled from valid chunks whose hopPath holds more than 16
                   ids: copied into 16 fixed slots (long list inside valid outer layers)
  flags-hang       a chunk whose flags have bit 7 set: the flag walker shifts the byte as a
                   signed Int8, which never reaches 0 (a hang on one input)
  chunk-pair       a chunk of a reassembly in progress on its link with another totalChunks:
                   asserted equal instead of discarded (a crash on a sequence of two inputs)
"""
import argparse
import base64
import binascii
import datetime
import decimal
import json
import math
import random
import re
import struct
import uuid
from collections import OrderedDict

from stdio_node import emit, log, run

# blemesh.md section 5.
CHUNK_MAX, CHUNK_PAYLOAD, CHUNK_COUNT_MAX = 512, 162, 1024
ENVELOPE_MAX = 65_536
RETENTION = 300.0
DEDUP_CAPACITY = 4096          # the page's minimum is 1024
REASSEMBLY_MAX, REASSEMBLY_LIFETIME = 64, 300.0
MAX_LINKS = 7
CONTROL_TYPES = {"RREQ", "RREP", "RERR", "ANNOUNCE", "ACK", "READ"}
UUID_TEXT = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
DATE_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})\Z")
BUGS = ("int64-index", "total-max", "hoppath-overflow", "flags-hang", "chunk-pair")


class Refused(Exception):
    """An input a decoder refuses, with its error code: dropped, no state changes."""


# ---- JSON conventions (BLEMESH-W5) ---------------------------------------------------------

def depth(raw):
    """Deepest nesting of arrays and objects, strings skipped."""
    level = deepest = 0
    in_string = escaped = False
    for c in raw:
        if in_string:
            in_string = escaped or c != 0x22
            escaped = not escaped and c == 0x5C
        elif c == 0x22:
            in_string = True
        elif c in b"[{":
            level += 1
            deepest = max(deepest, level)
        elif c in b"]}":
            level -= 1
    return deepest


def json_object(raw, limit):
    if len(raw) > limit:
        raise Refused("tooLarge")
    if depth(raw) > 32:
        raise Refused("tooDeep")

    def no_repeats(pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            raise Refused("duplicateKey")
        return dict(pairs)

    def no_constants(_):
        raise Refused("badJSON")  # NaN, Infinity

    try:
        value = json.loads(raw.decode("utf-8"), object_pairs_hook=no_repeats, parse_constant=no_constants,
                           parse_float=decimal.Decimal)
    except (ValueError, RecursionError, decimal.InvalidOperation) as e:
        raise Refused(f"badJSON: {e}")
    if not isinstance(value, dict):
        raise Refused("wrongType")
    return value


def field(o, key, optional=False):
    if o.get(key) is None:
        if optional:
            return None
        raise Refused(f"missingField {key}" if key not in o else f"wrongType {key}: null")
    return o[key]


def integer(o, key):
    """Any integral JSON number (3, 3.0), exactly, at any size."""
    v = field(o, key)
    if isinstance(v, decimal.Decimal):
        if not v.is_finite() or v.adjusted() > 40 or v != v.to_integral_value():
            raise Refused(f"wrongType {key}")
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise Refused(f"wrongType {key}")
    return v


def in_range(v, key, lo, hi, code):
    if not lo <= v <= hi:
        raise Refused(f"{code} {key}")
    return v


def text(o, key, optional=False):
    v = field(o, key, optional)
    if v is not None and not isinstance(v, str):
        raise Refused(f"wrongType {key}")
    return v


def node_id(o, key, optional=False):
    v = text(o, key, optional)
    if v is not None and not UUID_TEXT.match(v):
        raise Refused(f"badUUID {key}")
    return v.upper() if v is not None else None


def data(o, key, optional=False):
    v = text(o, key, optional)
    if v is None:
        return None
    try:
        return base64.b64decode(v, validate=True)  # padded standard alphabet, no whitespace
    except (binascii.Error, ValueError):
        raise Refused(f"badBase64 {key}")


def boolean(o, key):
    v = field(o, key)
    if not isinstance(v, bool):
        raise Refused(f"wrongType {key}")
    return v


def canonical(o):
    """Sorted keys, no whitespace, '/' escaped as Foundation writes it (BLEMESH-W5)."""
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).replace("/", "\\/").encode()


# ---- wire formats (blemesh.md section 2) ---------------------------------------------------

def decode_chunk(raw, bugs):
    """blemesh.chunk, BLEMESH-W1: (messageID, index, total, payload bytes)."""
    o = json_object(raw, CHUNK_MAX)
    message_id = node_id(o, "messageID")
    index, total = integer(o, "chunkIndex"), integer(o, "totalChunks")
    if "int64-index" in bugs:
        # The planted bug: both are stored as Int64 before they are range-checked.
        struct.pack(">qq", index, total)
    for v, key in ((index, "chunkIndex"), (total, "totalChunks")):
        in_range(v, key, -2**63, 2**63 - 1, "valueOutOfRange")
    if not 1 <= total <= CHUNK_COUNT_MAX or not 0 <= index < total:
        raise Refused("chunkIndexOutOfRange")
    flags = in_range(integer(o, "flags"), "flags", 0, 255, "valueOutOfRange")
    if "flags-hang" in bugs:
        # The planted bug: the flags are walked bit by bit as a signed byte; an arithmetic
        # shift of a negative value never reaches 0.
        walker = flags - 256 if flags & 0x80 else flags
        while walker:
            walker >>= 1
    return message_id, index, total, data(o, "payload")


def decode_date(value):
    m = DATE_TEXT.match(value) if isinstance(value, str) else None
    if not m:
        raise Refused("badDate")
    try:
        datetime.datetime(*(int(g) for g in m.groups()[:6]))
    except ValueError:
        raise Refused("badDate")
    return value


def decode_envelope(raw):
    """blemesh.envelope, BLEMESH-W2."""
    o = json_object(raw, ENVELOPE_MAX)
    e = {"id": node_id(o, "id"), "originID": node_id(o, "originID"), "originName": text(o, "originName"),
         "destinationID": node_id(o, "destinationID", True), "conversationID": node_id(o, "conversationID", True),
         "timestamp": decode_date(field(o, "timestamp")),
         "sequenceNumber": in_range(integer(o, "sequenceNumber"), "sequenceNumber", 0, 2**64 - 1, "valueOutOfRange"),
         "ttl": in_range(integer(o, "ttl"), "ttl", 0, 255, "ttlOutOfRange"),
         "isControlMessage": boolean(o, "isControlMessage"), "isEncrypted": boolean(o, "isEncrypted"),
         "isGroupMessage": boolean(o, "isGroupMessage"), "payload": data(o, "payload"), "signature": data(o, "signature", True)}
    path = field(o, "hopPath")
    if not isinstance(path, list):
        raise Refused("wrongType hopPath")
    e["hopPath"] = [node_id({"hop": hop}, "hop") for hop in path]
    return e


def encode_envelope(e):
    o = {k: v for k, v in e.items() if v is not None}
    for key in ("payload", "signature"):
        if key in o:
            o[key] = base64.b64encode(o[key]).decode()
    return canonical(o)


def decode_control(raw):
    """blemesh.control, BLEMESH-W3, and its inner message's JSON (BLEMESH-W4 in part)."""
    o = json_object(raw, ENVELOPE_MAX)
    kind = text(o, "type")
    if kind not in CONTROL_TYPES:
        raise Refused("unknownType")
    inner = json_object(data(o, "payload"), ENVELOPE_MAX)
    stamp = field(inner, "timestamp")
    if isinstance(stamp, bool) or not isinstance(stamp, (int, decimal.Decimal)) or not decimal.Decimal(stamp).is_finite():
        raise Refused("wrongType timestamp")
    return kind, inner


def chunks(message_id, envelope_bytes, limit=CHUNK_MAX):
    """BLEMESH-R3: pieces of at most 162 bytes, flags 0x01 on the first and 0x02 on the last;
    on a link that carries at most `limit` bytes a unit (BLEMESH-G3: a notification fits
    ATT_MTU - 3), the largest pieces whose chunks all fit, none if not even one-byte pieces do."""
    for piece in range(CHUNK_PAYLOAD, 0, -1):
        pieces = [envelope_bytes[i:i + piece] for i in range(0, len(envelope_bytes), piece)] or [b""]
        total = len(pieces)
        units = [canonical({"messageID": message_id, "chunkIndex": i, "totalChunks": total,
                            "flags": (1 if i == 0 else 0) | (2 if i == total - 1 else 0),
                            "payload": base64.b64encode(p).decode()}) for i, p in enumerate(pieces)]
        if max(len(u) for u in units) <= limit:
            return units if total <= CHUNK_COUNT_MAX else []
    return []


# ---- the node (blemesh.md section 3) -------------------------------------------------------

class Assembly:
    def __init__(self, total, born):
        self.total, self.born, self.pieces, self.size = total, born, {}, 0


class BLEMeshNode:
    def __init__(self, start, clock, timers, bugs):
        self.me = start["address"].upper()
        self.clock, self.timers, self.bugs = clock, timers, bugs
        self.rng = random.Random(int(start["seed"]))
        self.links = {}                  # link -> neighbour device id (None: unknown)
        self.max_units = {}              # link -> the largest unit it carries (maxUnit in link-up)
        self.seen = OrderedDict()        # dedup key -> time recorded
        self.assemblies = OrderedDict()  # (link, messageID) -> Assembly

    def link_up(self, link, peer, max_unit=None):
        if link not in self.links and len(self.links) >= MAX_LINKS:
            emit(type="disconnect", link=link)
            return
        self.links[link] = peer.upper() if isinstance(peer, str) else None
        self.max_units[link] = min(CHUNK_MAX, max_unit) if isinstance(max_unit, int) else CHUNK_MAX

    def link_down(self, link):
        self.links.pop(link, None)
        self.max_units.pop(link, None)
        for key in [k for k in self.assemblies if k[0] == link]:
            del self.assemblies[key]

    def received(self, raw, link):
        if link not in self.links:
            return
        try:
            message_id, index, total, piece = decode_chunk(raw, self.bugs)
        except Refused as why:           # BLEMESH-R19
            log(f"dropped {len(raw)} bytes on link {link}: {why}")
            return
        envelope = self.reassemble(link, message_id, index, total, piece)
        if envelope is None:
            return
        try:
            e = decode_envelope(envelope)
        except Refused as why:
            log(f"reassembled envelope dropped: {why}")
            return
        if "hoppath-overflow" in self.bugs:
            # The planted bug: the hop path is copied into 16 fixed slots.
            slots = [None] * 16
            for i, hop in enumerate(e["hopPath"]):
                slots[i] = hop
        if e["hopPath"] and self.links[link] is None:
            self.links[link] = e["hopPath"][-1]   # BLEMESH-R1: the neighbour's id
        self.dispatch(e, link)

    def reassemble(self, link, message_id, index, total, piece):
        """BLEMESH-R4: the envelope's bytes once every index is in, else None."""
        if "total-max" in self.bugs:
            # The planted bug: slots for the page's maximum count, with a sentinel at [total].
            slots = [None] * CHUNK_COUNT_MAX
            slots[total] = "end"
        now = self.clock.now()
        for key in [k for k, a in self.assemblies.items() if now - a.born >= REASSEMBLY_LIFETIME]:
            del self.assemblies[key]
        key = (link, message_id)
        assembly = self.assemblies.get(key)
        if assembly is None:
            if len(self.assemblies) >= REASSEMBLY_MAX:
                self.assemblies.popitem(last=False)
            assembly = self.assemblies[key] = Assembly(total, now)
        if total != assembly.total:
            if "chunk-pair" in self.bugs:
                # The planted bug: the total is asserted, not checked.
                raise RuntimeError(f"chunk of {message_id} says {total} chunks, the reassembly {assembly.total}")
            return None                  # a chunk with another total is discarded
        if index in assembly.pieces:
            return None                  # a repeated index is ignored
        assembly.pieces[index] = piece
        assembly.size += len(piece)
        if assembly.size > CHUNK_COUNT_MAX * CHUNK_PAYLOAD:
            del self.assemblies[key]
            return None
        if len(assembly.pieces) < assembly.total:
            return None
        del self.assemblies[key]
        return b"".join(assembly.pieces[i] for i in range(assembly.total))

    def dispatch(self, e, link):
        """BLEMESH-R5, R6."""
        now = self.clock.now()
        while self.seen and (now - next(iter(self.seen.values())) >= RETENTION or len(self.seen) > DEDUP_CAPACITY):
            self.seen.popitem(last=False)
        key = f"{e['id']}-{e['originID']}-{e['sequenceNumber']}"
        if key in self.seen:
            return
        self.seen[key] = now
        if e["originID"] == self.me or e["isEncrypted"]:
            return
        directed = e["destinationID"] is not None
        if e["isControlMessage"] and (not directed or e["destinationID"] == self.me):
            try:
                kind, _ = decode_control(e["payload"])
                log(f"control {kind} from {e['originID']}: this node does not route")
            except Refused as why:
                log(f"control envelope dropped: {why}")
            return
        if directed and e["destinationID"] == self.me:
            return                       # delivered (no upper tester here), never relayed
        self.relay(e, link, broadcast=not directed)

    def relay(self, e, ingress, broadcast):
        """BLEMESH-R7 to R10: ttl - 1, own id appended, re-chunked, split horizon, fan-out, jitter."""
        if e["ttl"] <= 1:
            return
        path = set(e["hopPath"])
        candidates = sorted(l for l, peer in self.links.items() if l != ingress and peer not in path)
        if not candidates:
            return
        if not broadcast and e["destinationID"] in (self.links[l] for l in candidates):
            candidates = [l for l in candidates if self.links[l] == e["destinationID"]]  # BLEMESH-R9
        elif broadcast:
            k = math.ceil(math.sqrt(len(candidates))) + 1
            if k < len(candidates):
                candidates = sorted(self.rng.sample(candidates, k))
        out = dict(e, ttl=e["ttl"] - 1, hopPath=e["hopPath"] + [self.me])
        data = encode_envelope(out)
        degree = len(self.links)
        window = (0.010, 0.050) if degree < 3 else (0.020, 0.060) if degree < 5 else (0.030, 0.080)
        self.timers.later(self.rng.uniform(*window), lambda: self.send(e["id"], data, candidates))

    def send(self, message_id, data, links):
        """BLEMESH-R3: chunked for each link by what it carries (G3), in index order."""
        for link in links:
            if link in self.links:
                for unit in chunks(message_id, data, self.max_units[link]):
                    emit(type="tx", link=link, hex=unit.hex())


def main():
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--bug", action="append", default=[], choices=BUGS, help="plant a bug (see the module's doc)")
    bugs = set(options.parse_args().bug)
    run("blemesh", lambda start, clock, timers: BLEMeshNode(start, clock, timers, bugs))


if __name__ == "__main__":
    main()
