#!/usr/bin/env python3
"""A `relay` node for meshconform to test, speaking the stdio DUT protocol (docs/stdio-dut.md).

    meshconform run --dut-exec "python3 examples/relay-dut.py" \
                    --capabilities examples/relay-dut.capabilities.json

It implements the node rules of docs/dialects/relay.md independently of meshconform's Swift
code, as a model of what a DUT has to do: decode strictly (RELAY-W1 to W6), originate
(R2), de-duplicate (R3), deliver and ack (R4, R7), relay with jitter (R5, R6), beacon (R9,
R10), keep at most 7 links (R11) and survive anything (R12). It does not retransmit (R8 is a
MAY). Its timers run on this process's own clock, or, when the tester asks for it in `start`
(`"clock": "tester"`, docs/stdio-dut.md section 6), on the time the tester sends: then the
whole catalog, the 5-minute cache retention check included, runs in seconds.

--no-dedup makes it the deliberately broken variant: it behaves like the original app
(relay.md section 7, rows 3 and 5): no de-duplication cache, and no check for its own
frames and beacons coming back. meshconform's DDP checks fail it. --retention SECONDS
shortens how long the cache remembers (the page's minimum is 300 s): with 60, only the
retention check (DDP/BV-07) fails.

--bug NAME plants one bug a real app could have (several may be given), each a crash or hang
that meshconform's over-the-air fuzzer must find (docs/fuzzing.md, "Planted bugs in the example
DUTs"; examples/bitchat-dut.py and examples/blemesh-dut.py have the same classes):
  ttl-int64     a header whose `ttl` or `hop` is beyond a signed 64-bit integer: read into an
                Int64 before the range check (boundary integer)
  length-max    a packet whose header length is 0xFFFF, the field's maximum: the header buffer
                is reserved as length + 1 in 16 bits, which wraps to 0 (maximal length field)
  hop-hang      a beacon whose `hop` is 255: a u8 counter walks up to it and wraps (a hang on
                one input)
  dup-ttl       a frame seen before (same origin and seq) arriving again with another `ttl`:
                the cached TTL is asserted equal (a crash on a sequence of two inputs)
The relay formats have no list field, so the long-list class is planted in the other two.

Needs Python 3.11 and the `cryptography` package.
"""
import argparse
import decimal
import hashlib
import heapq
import json
import math
import os
import random
import re
import select
import struct
import sys
import time
import uuid
from collections import OrderedDict

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

# relay.md section 6.
DEFAULT_TTL = 8
BEACON_PERIOD = 2.0
RETENTION = 300.0
CACHE_CAPACITY = 4096        # the page's minimum is 1024
MAX_LINKS = 7
MAX_PACKET = 512
# The page's window is 0-100 ms measured at the node. We draw from the first half of it so
# that our own scheduling delays (a busy machine, Python) cannot push a relay past its end.
JITTER = (0.0, 0.050)

FRAME, ACK, BEACON = 0x46, 0x61, 0x42
BUGS = ("ttl-int64", "length-max", "hop-hang", "dup-ttl")
PLANTED = set()  # the --bug names given
UUID_TEXT = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


class Refused(Exception):
    """A packet a decoder refuses (RELAY-W1 to W5): it is dropped and changes no state."""


# ---- wire formats (relay.md section 2) ----------------------------------------------------

def json_object(raw):
    """Strict JSON (RELAY-W2, W6): UTF-8, no repeated key, depth <= 32, exact integers."""
    text = raw.decode("utf-8")  # UnicodeDecodeError is a ValueError: refused by the caller
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
    if deepest > 32:
        raise Refused("tooDeep")

    def no_repeats(pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            raise Refused("duplicateKey")
        return dict(pairs)

    def no_constants(name):
        raise Refused("badJSON")  # NaN, Infinity

    value = json.loads(text, object_pairs_hook=no_repeats, parse_constant=no_constants,
                       parse_float=decimal.Decimal)
    if not isinstance(value, dict):
        raise Refused("wrongType")
    return value


def integer(o, key, lo, hi):
    """An integral JSON number in any form (8, 8.0, 8e0), exactly, in lo...hi."""
    v = o.get(key)
    if "ttl-int64" in PLANTED and key in ("ttl", "hop") and isinstance(v, int):
        struct.pack(">q", v)  # the planted bug: stored as an Int64 before the range check
    if isinstance(v, decimal.Decimal):
        if v.adjusted() > 25 or v != v.to_integral_value():
            raise Refused("wrongType or out of range")
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise Refused(f"{key}: not an integer in {lo}...{hi}")
    return v


def node_id(o, key):
    v = o.get(key)
    if not isinstance(v, str) or not UUID_TEXT.fullmatch(v):
        raise Refused(f"{key}: not a UUID")
    return v.upper()


def canonical(obj):
    """Sorted keys, no whitespace (RELAY-W6). Our values never contain '/', so no escaping."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def decode(packet):
    """relay.packet (RELAY-W1): ('frame', header, body) | ('ack', seq) | ('beacon', beacon)."""
    if len(packet) < 3 or packet[0] not in (FRAME, ACK, BEACON):
        raise Refused("truncated or unknown type")
    (length,) = struct.unpack(">H", packet[1:3])
    if "length-max" in PLANTED:
        bytearray((length + 1) & 0xFFFF)[length] = 0  # the planted bug: a 16-bit size wraps
    if len(packet) < 3 + length:
        raise Refused("truncated")
    header, body = packet[3:3 + length], packet[3 + length:]
    if packet[0] == ACK:
        if length != 8 or body:
            raise Refused("lengthMismatch or trailingBytes")
        return "ack", struct.unpack(">Q", header)[0]
    try:
        o = json_object(header)
    except (ValueError, RecursionError, decimal.InvalidOperation) as e:  # JSONDecodeError and UnicodeDecodeError included
        raise Refused(f"badJSON: {e}")
    if packet[0] == FRAME:
        return "frame", {"origin": node_id(o, "origin"), "dest": node_id(o, "dest"),
                         "ttl": integer(o, "ttl", 0, 255), "seq": integer(o, "seq", 0, 2**64 - 1)}, body
    if body:
        raise Refused("trailingBytes")
    return "beacon", {"origin": node_id(o, "origin"), "seqNo": integer(o, "seqNo", 0, 2**32 - 1),
                      "ttl": integer(o, "ttl", 0, 255), "hop": integer(o, "hop", 0, 255)}


def encode(kind, header, body=b""):
    raw = struct.pack(">Q", header) if kind == ACK else canonical(header)
    return bytes([kind]) + struct.pack(">H", len(raw)) + raw + body


# ---- identity and sealed bodies (RELAY-W5, RELAY-R1) ---------------------------------------

class Keyring:
    def __init__(self, settings):
        if "privateKey" not in settings:
            sys.exit("relay-dut: the start frame has no privateKey setting")
        self.private = X25519PrivateKey.from_private_bytes(bytes.fromhex(settings["privateKey"]))
        public = self.private.public_key().public_bytes_raw()
        self.id = str(uuid.UUID(bytes=hashlib.sha256(public).digest()[:16])).upper()  # RELAY-W6
        self.contacts = {name[len("contact."):].upper(): bytes.fromhex(key)
                         for name, key in settings.items() if name.startswith("contact.")}
        self.keys = {}

    def key(self, peer):
        """HKDF-SHA256(X25519(mine, theirs)), empty salt and info; None for unknown peers."""
        if peer not in self.keys:
            try:
                shared = self.private.exchange(X25519PublicKey.from_public_bytes(self.contacts[peer]))
            except (KeyError, ValueError):  # unknown peer, bad key, all-zero shared secret
                return None
            self.keys[peer] = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"").derive(shared)
        return self.keys[peer]

    def seal(self, peer, plaintext):
        nonce = os.urandom(12)
        return nonce + ChaCha20Poly1305(self.key(peer)).encrypt(nonce, plaintext, None)

    def open(self, peer, body):
        key = self.key(peer)
        if key is None or len(body) < 28:
            return None
        try:
            return ChaCha20Poly1305(key).decrypt(body[:12], body[12:], None)
        except InvalidTag:
            return None


class Cache:
    """Entries kept `retention` seconds after their last write, oldest evicted first (RELAY-R3)."""

    def __init__(self, retention=RETENTION):
        self.entries, self.retention = OrderedDict(), retention

    def get(self, key, now):
        entry = self.entries.get(key)
        if entry is None or now - entry[0] >= self.retention:
            return None
        return entry[1]

    def put(self, key, value, now):
        self.entries.pop(key, None)
        self.entries[key] = (now, value)
        while len(self.entries) > CACHE_CAPACITY:
            self.entries.popitem(last=False)


# ---- the node -----------------------------------------------------------------------------

class Clock:
    """The node's time in seconds: this process's monotonic clock, or the tester's (the last
    `time` line, in whole microseconds)."""

    def __init__(self, tester_driven):
        self.tester_driven, self.told_us = tester_driven, 0

    def now(self):
        return self.told_us / 1e6 if self.tester_driven else time.monotonic()


class RelayNode:
    def __init__(self, keyring, rng, clock, dedup=True, retention=RETENTION):
        self.keyring, self.me, self.rng, self.clock, self.dedup = keyring, keyring.id, rng, clock, dedup
        self.links = set()
        self.seen = Cache(retention)      # ("F", origin, seq) / ("B", origin, seqNo) -> (ingress, relayed)
        self.last_seq_no = Cache()  # beacon origin -> last seqNo (RELAY-R10.2)
        self.ack_routes = Cache()   # seq -> ingress links of the frames relayed with it (R7.2)
        self.own = OrderedDict()    # seq of frames we originated, until acked (R7.3)
        self.last_own_seq = 0
        self.beacon_seq_no = 0
        self.beacon_running = False
        self.timers = []            # heap of (when, n, callback)
        self.timer_count = 0
        self.ttl_seen = {}          # --bug dup-ttl only

    # -- output and timers --

    @staticmethod
    def emit(**message):
        sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    def send(self, packet, links):
        for link in sorted(links):
            if link in self.links:  # a link that went down meanwhile is skipped
                self.emit(type="tx", link=link, hex=packet.hex())

    def later(self, delay, callback):
        self.timer_count += 1
        heapq.heappush(self.timers, (self.clock.now() + delay, self.timer_count, callback))

    def jittered(self, packet, links):
        """RELAY-R6 / R7.1: out within the jitter window, drawn per relay."""
        if links:
            self.later(self.rng.uniform(*JITTER), lambda: self.send(packet, links))

    def run_due_timers(self):
        while self.timers and self.timers[0][0] <= self.clock.now():
            heapq.heappop(self.timers)[2]()

    def seconds_to_next_timer(self):
        return max(0.0, self.timers[0][0] - self.clock.now()) if self.timers else None

    def next_timer_us(self):
        """For `idle` on the tester's clock: the first whole microsecond at which the earliest
        timer is due (never earlier, or that `time` line would not fire it)."""
        if not self.timers:
            return None
        when = self.timers[0][0]
        us = math.ceil(when * 1e6)
        return us if us / 1e6 >= when else us + 1

    # -- events from the tester --

    def link_up(self, link):
        if link not in self.links and len(self.links) >= MAX_LINKS:
            self.emit(type="disconnect", link=link)  # RELAY-R11: no eighth link
            return
        self.links.add(link)
        if not self.beacon_running:  # RELAY-R9: beacons while at least one link is up
            self.beacon_running = True
            self.later(BEACON_PERIOD, self.beacon)

    def link_down(self, link):
        self.links.discard(link)

    def originate(self, payload, dest):
        """RELAY-R2, for the upper tester's `send`."""
        if dest is None or self.keyring.key(dest.upper()) is None:
            self.emit(type="log", text=f"cannot send to {dest}: relay has no broadcast, and needs the peer's key")
            return
        dest, now = dest.upper(), self.clock.now()
        # The bit pattern of the creation time as a Double, as the app does; never reused.
        seq = max(struct.unpack(">Q", struct.pack(">d", time.time()))[0], self.last_own_seq + 1)
        self.last_own_seq = seq
        header = {"origin": self.me, "dest": dest, "ttl": DEFAULT_TTL, "seq": seq}
        packet = encode(FRAME, header, self.keyring.seal(dest, payload))
        if len(packet) > MAX_PACKET:  # RELAY-G3
            self.emit(type="log", text=f"not sent: {len(packet)} bytes is over {MAX_PACKET}")
            return
        self.seen.put(("F", self.me, seq), (None, False), now)
        self.own[seq] = now
        while len(self.own) > 64:
            self.own.popitem(last=False)
        self.send(packet, self.links)

    def received(self, packet, link):
        if link not in self.links:
            return
        try:
            decoded = decode(packet)
        except Refused as why:  # RELAY-R12: dropped, nothing changes
            self.emit(type="log", text=f"dropped {len(packet)} bytes on link {link}: {why}")
            return
        now = self.clock.now()
        if decoded[0] == "frame":
            self.frame(decoded[1], decoded[2], link, now)
        elif decoded[0] == "ack":
            self.ack(decoded[1], link, now)
        else:
            self.beacon_received(decoded[1], link, now)

    # -- the rules --

    def frame(self, h, body, link, now):
        key = ("F", h["origin"], h["seq"])
        duplicate = self.dedup and self.seen.get(key, now) is not None
        if "dup-ttl" in PLANTED:
            # The planted bug: a frame's TTL is remembered and asserted equal on a repeat.
            if self.ttl_seen.setdefault(key, h["ttl"]) != h["ttl"]:
                raise RuntimeError(f"frame {h['seq']} came back with ttl {h['ttl']}")
        if h["dest"] == self.me:  # RELAY-R4, whatever the ttl; never relayed
            if not duplicate:
                plaintext = self.keyring.open(h["origin"], body)
                if plaintext is None:  # R4.1: no delivery, no ack, no cache entry
                    self.emit(type="log", text=f"frame {h['seq']} from {h['origin']} does not open: dropped")
                    return
                self.seen.put(key, (link, False), now)
                self.emit(type="deliver", origin=h["origin"], destination=self.me,
                          payload=plaintext.hex(), id=str(h["seq"]))
            self.jittered(encode(ACK, h["seq"]), {link})  # R4.2 re-acks duplicates too
            return
        if (h["origin"] == self.me and self.dedup) or duplicate:  # R5.1, R5.2
            return
        self.seen.put(key, (link, False), now)  # R5.3: recorded even when not relayed
        targets = self.links - {link}
        if h["ttl"] <= 1 or not targets:
            return
        relayed = encode(FRAME, dict(h, ttl=h["ttl"] - 1), body)  # R5.4: body byte for byte
        if len(relayed) > MAX_PACKET:  # RELAY-G3
            return
        self.seen.put(key, (link, True), now)
        routes = self.ack_routes.get(h["seq"], now) or []
        self.ack_routes.put(h["seq"], sorted(set(routes) | {link}), now)
        self.jittered(relayed, targets)

    def ack(self, seq, link, now):
        if self.own.pop(seq, None) is not None:  # R7.3: ours; tell the app, do not forward
            self.emit(type="acked", id=str(seq))
            return
        routes = self.ack_routes.get(seq, now)  # R7.2: back where the frame came from
        if routes is None:
            self.emit(type="log", text=f"ack {seq} matches no relayed frame: dropped")
            return
        self.jittered(encode(ACK, seq), set(routes) - {link})

    def beacon(self):
        """RELAY-R9: every 2 s on every link, seqNo 1, 2, 3 ..., ttl 8, hop 0."""
        if not self.links:
            self.beacon_running = False  # restarted by the next link-up
            return
        self.beacon_seq_no += 1
        self.seen.put(("B", self.me, self.beacon_seq_no), (None, False), self.clock.now())
        self.send(encode(BEACON, {"origin": self.me, "seqNo": self.beacon_seq_no, "ttl": DEFAULT_TTL, "hop": 0}),
                  self.links)
        self.later(BEACON_PERIOD, self.beacon)

    def beacon_received(self, b, link, now):
        """RELAY-R10. Beacons are never delivered nor acked."""
        if "hop-hang" in PLANTED:
            hops = 0  # the planted bug: a u8 counter up to the hop count
            while hops <= b["hop"]:
                hops = (hops + 1) & 0xFF
        if b["origin"] == self.me and self.dedup:  # R10.1
            return
        key = ("B", b["origin"], b["seqNo"])
        last = self.last_seq_no.get(b["origin"], now)
        if self.dedup and (self.seen.get(key, now) is not None or (last is not None and last >= b["seqNo"])):
            return  # R10.2
        self.seen.put(key, (link, False), now)  # R10.3
        self.last_seq_no.put(b["origin"], b["seqNo"], now)
        if b["ttl"] > 1 and b["hop"] < 255:  # R10.4
            self.jittered(encode(BEACON, dict(b, ttl=b["ttl"] - 1, hop=b["hop"] + 1)), self.links - {link})


# ---- the stdio protocol (docs/stdio-dut.md) -------------------------------------------------

class Tester:
    """The tester's side of stdin: JSON lines, read without blocking the node's timers."""

    def __init__(self, fd):
        self.fd, self.pending = fd, b""

    def messages(self, node=None):
        """Yields the tester's messages, running the node's timers while it waits for them.
        Unread lines stay in `pending`, so a second call carries on where the first stopped."""
        while True:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                if line.strip():
                    yield json.loads(line)
            if node:
                node.run_due_timers()
            ready, _, _ = select.select([self.fd], [], [], node.seconds_to_next_timer() if node else None)
            if ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    return  # end of file: the tester is gone
                self.pending += chunk


def main():
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--no-dedup", action="store_true", help="the broken variant: no de-duplication")
    options.add_argument("--retention", type=float, default=RETENTION, help="seconds the de-duplication cache remembers")
    options.add_argument("--bug", action="append", default=[], choices=BUGS, help="plant a bug (see the module's doc)")
    args = options.parse_args()
    PLANTED.update(args.bug)

    tester = Tester(sys.stdin.fileno())
    start = next(tester.messages(), None)
    if start is None or start.get("type") != "start" or start.get("version") != 1 or start.get("dialect") != "relay":
        sys.exit(f"relay-dut: expected a version 1 start frame for the relay dialect, got {start}")
    keyring = Keyring(start["settings"])
    clock = Clock(tester_driven=start.get("clock") == "tester")
    node = RelayNode(keyring, random.Random(int(start["seed"])), clock, dedup=not args.no_dedup, retention=args.retention)
    if clock.tester_driven:
        node.emit(type="ready", version=1, clock="tester")  # confirms: timers run on `time` lines
    else:
        node.emit(type="ready", version=1)
    if start["address"].upper() != keyring.id:
        node.emit(type="log", text=f"the tester calls us {start['address']}, our key says {keyring.id}")

    # On the tester's clock nothing happens between the tester's lines: no select timeout.
    for message in tester.messages(None if clock.tester_driven else node):
        kind = message["type"]
        if kind == "link-up":
            node.link_up(message["link"])
        elif kind == "link-down":
            node.link_down(message["link"])
        elif kind == "rx":
            node.received(bytes.fromhex(message["hex"]), message["link"])
        elif kind == "send":
            node.originate(bytes.fromhex(message["payload"]), message.get("destination"))
        elif kind == "time":
            clock.told_us = max(clock.told_us, message["nowUs"])
            node.run_due_timers()
        elif kind == "stop":
            return
        # Other types belong to later protocol versions: ignored.
        if clock.tester_driven:
            node.emit(type="idle", nextUs=node.next_timer_us())


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the tester went away
