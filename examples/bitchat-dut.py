#!/usr/bin/env python3
"""A `bitchat` node for meshconform to test, speaking the stdio DUT protocol (docs/stdio-dut.md).

    meshconform run --dialect bitchat --dut-exec "python3 examples/bitchat-dut.py" \
                    --capabilities examples/bitchat-dut.capabilities.json
    meshconform fuzz --dialect bitchat --dut-exec "python3 examples/bitchat-dut.py --bug pad-hang" \
                    --capabilities examples/bitchat-dut.capabilities.json

Written from docs/dialects/bitchat.md alone (not from meshconform's Swift code): strict decoding
of packets and fragments (BITCHAT-W1 to W8), de-duplication (R3), freshness (R4), the TTL cap
(R5), relaying byte for byte but the TTL after 10-60 ms (R6) and reassembly (R8). It has no
upper tester (it never originates and writes no `deliver`), so it is a relay to test and fuzz.
Timers run on this process's clock, or on the tester's when `start` asks for it.

--bug NAME plants one bug a real app could have (several may be given), each a crash or hang
that meshconform's over-the-air fuzzer must find (docs/fuzzing.md, "Planted bugs in the example
DUTs"):
  original-size-max  a compressed packet whose original-size field is at its maximum (0xFFFF in
                     v1, 0xFFFFFFFF in v2): the size + 1 of the inflate buffer wraps around to 0
                     before the tooLarge check (boundary integer used as a size)
  total-max          a fragment whose `total` is 10000, the field's maximum: the slot table of
                     10000 entries is indexed by `total` (maximal count field)
  long-route         a v2 packet reassembled from fragments whose route has more than 8 hops: the
                     reassembly path copies the route into 8 fixed slots (long list inside valid
                     outer layers)
  pad-hang           bytes after a frame whose pad runs, stripped p = last byte bytes at a time,
                     come to a 0x00 (bytes ending in 00, for one): the stripper never advances
                     (a hang on one input)
  fragment-pair      a fragment whose (sender, fragment id, index) is already held with other data:
                     the slot is asserted empty (a crash on a sequence of two inputs)
  relink-assembly    the last fragment of an assembly whose first fragment came on a link that has
                     since gone down and up again: the assembly credits its frame to the receive
                     buffer of the link it started on, which the link's going down released (a
                     crash that needs link churn between inputs)

--habit NAME gives the node a habit that third-party bitchat nodes were found with (several may
be given), which meshconform must judge without calling a working node broken (docs/checks.md,
"Verdicts"):
  random-padding     re-pads every relay with random bytes after the frame, not one PKCS#7 pad
                     (breaks BITCHAT-W7: no relay decodes)
  notify-all         sends each relay to every link, the ingress too, as a peripheral notifying
                     all its subscribers does (breaks BITCHAT-R6.4)
  no-jitter          relays at once (breaks BITCHAT-R6.4's 10 ms minimum)
  late               everything it sends goes out 600 ms late (breaks BITCHAT-R6.4's 220 ms maximum)
"""
import argparse
import hashlib
import random
import struct
import sys
import uuid
import zlib
from collections import OrderedDict

from stdio_node import emit, log, run

# bitchat.md section 6.
TTL_CAP = 7
JITTER = (0.010, 0.060)
RETENTION = 300.0
DEDUP_CAPACITY = 4096          # the page's minimum is 1000
CLOCK_SKEW_MS = 120_000
MAX_PAYLOAD = 1_179_760
MAX_RATIO = 50_000
FRAGMENT_TOTAL_MAX = 10_000
REASSEMBLY_LIFETIME = 30.0
REASSEMBLY_MAX = 128
MAX_LINKS = 7
UNIT_MAX = 512                   # BITCHAT-G3: the largest value a link carries

FRAGMENT, REQUEST_SYNC = 0x20, 0x21
BROADCAST = b"\xff" * 8
BUGS = ("original-size-max", "total-max", "long-route", "pad-hang", "fragment-pair", "relink-assembly")
HABITS = ("random-padding", "notify-all", "no-jitter", "late")


class Refused(Exception):
    """An input a decoder refuses, with its error code: dropped, no state changes."""


# ---- wire formats (bitchat.md section 2) ---------------------------------------------------

class Packet:
    __slots__ = ("version", "type", "ttl", "timestamp", "flags", "sender", "recipient", "route", "payload", "raw")


def take(data, at, n):
    if at + n > len(data):
        raise Refused("truncated")
    return data[at:at + n], at + n


def inflate(data, size, bugs):
    """BITCHAT-W6: one complete raw DEFLATE stream, else one zlib stream, of exactly `size` bytes."""
    for wbits in (-15, 15):
        d = zlib.decompressobj(wbits)
        try:
            out = d.decompress(data, size + 1)
        except zlib.error:
            continue
        if d.eof and not d.unused_data and not d.unconsumed_tail and len(out) == size:
            return out
    raise Refused("badCompression")


def decode(data, bugs, reassembled=False):
    """bitchat.packet, BITCHAT-W1 to W7."""
    p = Packet()
    p.raw = data
    head, at = take(data, 0, 1)
    p.version = head[0]
    if p.version not in (1, 2):
        raise Refused("unknownType")
    width = 2 if p.version == 1 else 4
    fixed, at = take(data, at, 11 + width)
    p.type, p.ttl = fixed[0], fixed[1]
    (p.timestamp,) = struct.unpack(">Q", fixed[2:10])
    p.flags = fixed[10]
    length = int.from_bytes(fixed[11:], "big")
    if length > MAX_PAYLOAD:
        raise Refused("tooLarge")
    p.sender, at = take(data, at, 8)
    p.recipient = None
    if p.flags & 0x01:
        p.recipient, at = take(data, at, 8)
    p.route = []
    if p.version == 2 and p.flags & 0x08:
        count, at = take(data, at, 1)
        if count[0] == 0:
            raise Refused("valueOutOfRange")
        hops, at = take(data, at, 8 * count[0])
        if "long-route" in bugs and reassembled:
            # The planted bug: the reassembly path decodes into a struct with 8 route slots.
            slots = [None] * 8
            for i in range(count[0]):
                slots[i] = hops[8 * i:8 * i + 8]
        p.route = [hops[8 * i:8 * i + 8] for i in range(count[0])]
    section, at = take(data, at, length)
    if p.flags & 0x04:
        if length <= width:
            raise Refused("lengthMismatch")
        original = int.from_bytes(section[:width], "big")
        if "original-size-max" in bugs:
            # The planted bug: the inflate buffer is reserved before the size is checked, in
            # the field's own width, so the maximal size wraps to an empty buffer.
            buffer = bytearray((original + 1) & ((1 << (8 * width)) - 1))
            buffer[original] = 0
        if original > MAX_PAYLOAD:
            raise Refused("tooLarge")
        if original > MAX_RATIO * (length - width):
            raise Refused("ratioTooHigh")
        if original == 0:
            raise Refused("badCompression")
        p.payload = inflate(section[width:], original, bugs)
    else:
        p.payload = section
    if p.flags & 0x02:
        _, at = take(data, at, 64)
    rest = data[at:]
    if "pad-hang" in bugs:
        # The planted bug: strip PKCS#7 pad runs from the end, p bytes at a time.
        while rest:
            pad = rest[-1]
            rest = rest[:len(rest) - pad]
    elif rest and not (len(rest) == rest[-1] and rest == bytes([rest[-1]]) * len(rest)):
        raise Refused("trailingBytes")  # BITCHAT-W7: nothing, or exactly one pad
    return p


def decode_fragment(payload):
    """bitchat.fragment, BITCHAT-W8."""
    if len(payload) < 13:
        raise Refused("truncated")
    index, total = struct.unpack(">HH", payload[8:12])
    if not 1 <= total <= FRAGMENT_TOTAL_MAX or index >= total:
        raise Refused("chunkIndexOutOfRange")
    return payload[:8], index, total, payload[12], payload[13:]


# ---- the node (bitchat.md section 3) -------------------------------------------------------

class Assembly:
    def __init__(self, total, claimed_type, born, inbox):
        self.total, self.claimed_type, self.born, self.inbox = total, claimed_type, born, inbox
        self.pieces, self.size = {}, 0


class Inbox:
    """--bug relink-assembly: a link's receive buffer, released when the link goes down."""
    def __init__(self):
        self.frames = []

    def release(self):
        self.frames = None


class BitchatNode:
    def __init__(self, start, clock, timers, bugs, habits=frozenset()):
        address = start["address"]
        raw = uuid.UUID(address).bytes if "-" in address else bytes.fromhex(address)
        self.me = raw[:8]                                                # BITCHAT-R1
        self.epoch_ms = int(start["settings"].get("epoch", "0")) * 1000  # the tester's date
        self.clock, self.timers, self.bugs, self.habits = clock, timers, bugs, habits
        self.rng = random.Random(int(start["seed"]))
        self.links = set()
        self.seen = OrderedDict()        # dedup key -> time recorded
        self.assemblies = OrderedDict()  # (sender, fragment id) -> Assembly
        self.inboxes = {}                # link -> Inbox (--bug relink-assembly)

    def now_ms(self):
        return self.epoch_ms + int(self.clock.now() * 1000)

    def link_up(self, link, peer, _max_unit=None):
        if link not in self.links and len(self.links) >= MAX_LINKS:
            emit(type="disconnect", link=link)
            return
        self.links.add(link)
        self.inboxes[link] = Inbox()

    def link_down(self, link):
        self.links.discard(link)
        inbox = self.inboxes.pop(link, None)
        if inbox is not None:
            inbox.release()

    def received(self, data, link):
        if link not in self.links:
            return
        try:
            packet = decode(data, self.bugs)
        except Refused as why:                   # BITCHAT-R11
            log(f"dropped {len(data)} bytes on link {link}: {why}")
            return
        if abs(packet.timestamp - self.now_ms()) > CLOCK_SKEW_MS:   # BITCHAT-R4
            log(f"dropped: timestamp {packet.timestamp} is stale")
            return
        if not self.record(packet):              # BITCHAT-R3
            return
        if packet.type == FRAGMENT and (packet.recipient in (None, BROADCAST, self.me)):
            if not self.reassemble(packet, link):   # R8.5: a disagreeing fragment is not relayed
                return
        self.relay(packet, link)

    def record(self, packet):
        """BITCHAT-R3: False for a duplicate; a new key is recorded."""
        now = self.clock.now()
        while self.seen and (now - next(iter(self.seen.values())) >= RETENTION or len(self.seen) > DEDUP_CAPACITY):
            self.seen.popitem(last=False)
        key = f"{packet.sender.hex()}-{packet.timestamp}-{packet.type}-{hashlib.sha256(packet.payload).digest()[:4].hex()}"
        if key in self.seen:
            return False
        self.seen[key] = now
        return True

    def relay(self, packet, ingress):
        """BITCHAT-R5, R6: capped TTL - 1, every link but the ingress, byte for byte but the TTL."""
        if packet.sender == self.me or packet.type == REQUEST_SYNC or packet.recipient == self.me:
            return
        ttl = min(packet.ttl, TTL_CAP)
        targets = set(self.links) if "notify-all" in self.habits else self.links - {ingress}
        if ttl <= 1 or not targets:
            return
        out = packet.raw[:2] + bytes([ttl - 1]) + packet.raw[3:]
        room = min(12, UNIT_MAX - len(out))
        if "random-padding" in self.habits and room > 0:   # random bytes ending in 0: never one pad
            out += bytes(self.rng.randrange(256) for _ in range(room - 1)) + b"\x00"
        delay = 0.0 if "no-jitter" in self.habits else self.rng.uniform(*JITTER)
        self.timers.later(delay + (0.6 if "late" in self.habits else 0.0), lambda: self.send(out, targets))

    def send(self, data, links):
        for link in sorted(links & self.links):
            emit(type="tx", link=link, hex=data.hex())

    def reassemble(self, packet, link):
        """BITCHAT-R8. False when the fragment disagrees with its assembly (then not relayed)."""
        try:
            fragment_id, index, total, claimed, data = decode_fragment(packet.payload)
        except Refused as why:
            log(f"fragment dropped: {why}")
            return True
        if "total-max" in self.bugs:
            # The planted bug: slots for the page's maximum count, with a sentinel at [total].
            slots = [None] * FRAGMENT_TOTAL_MAX
            slots[total] = "end"
        now = self.clock.now()
        for key in [k for k, a in self.assemblies.items() if now - a.born >= REASSEMBLY_LIFETIME]:
            del self.assemblies[key]             # R8.2
        key = (packet.sender, fragment_id)       # R8.1
        assembly = self.assemblies.get(key)
        if assembly is None:
            if len(self.assemblies) >= REASSEMBLY_MAX:
                self.assemblies.popitem(last=False)   # R8.3: the oldest goes
            assembly = self.assemblies[key] = Assembly(total, claimed, now, self.inboxes.get(link))
        if total != assembly.total or claimed != assembly.claimed_type:
            return False                         # R8.5
        if index in assembly.pieces:
            if "fragment-pair" in self.bugs:
                # The planted bug: a slot is asserted empty before it is filled.
                if assembly.pieces[index] != data:
                    raise RuntimeError(f"fragment slot {index} already filled")
            return True                          # R8.5: the piece held is kept
        if assembly.size + len(data) > MAX_PAYLOAD + 512:
            del self.assemblies[key]
            return True
        assembly.pieces[index] = data
        assembly.size += len(data)
        if len(assembly.pieces) == assembly.total:
            del self.assemblies[key]
            if "relink-assembly" in self.bugs and assembly.inbox is not None:
                # The planted bug: the frame is credited to the inbox of the link the assembly
                # started on, held since then; after that link went down it is released (None).
                assembly.inbox.frames.append(assembly.total)
            self.complete(b"".join(assembly.pieces[i] for i in range(assembly.total)), assembly.claimed_type)
        return True

    def complete(self, frame, claimed):
        """R8.4: decoded as a packet, handled as received with TTL 0 (never relayed)."""
        try:
            inner = decode(frame, self.bugs, reassembled=True)
        except Refused as why:
            log(f"reassembled frame dropped: {why}")
            return
        if inner.type != claimed or inner.type == FRAGMENT:
            log("reassembled frame dropped: its type is not the claimed one, or a fragment")
            return
        self.record(inner)


def main():
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--bug", action="append", default=[], choices=BUGS, help="plant a bug (see the module's doc)")
    options.add_argument("--habit", action="append", default=[], choices=HABITS, help="a third-party node's habit (see the module's doc)")
    args = options.parse_args()
    bugs, habits = set(args.bug), frozenset(args.habit)
    run("bitchat", lambda start, clock, timers: BitchatNode(start, clock, timers, bugs, habits))


if __name__ == "__main__":
    main()
