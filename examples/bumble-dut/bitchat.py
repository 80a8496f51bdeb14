"""bitchat, written from docs/dialects/bitchat.md: the packet codec (section 2) and the node
rules (section 3). The node does no I/O: it is given a clock, a scheduler and a send function
by dut.py, and hears link_up / link_down / receive from radio.py.
"""
from __future__ import annotations

import hashlib
import logging
import os
import zlib
from collections import OrderedDict
from dataclasses import dataclass

log = logging.getLogger("bumble-dut")

SERVICE = "F47B5E2D-4A9E-4C5A-9B3F-8E1D2C3A4B5C"          # section 5, release builds
CHARACTERISTIC = "A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D"   # Read, Write, Write Without Response, Notify

ANNOUNCE, MESSAGE, FRAGMENT, REQUEST_SYNC = 0x01, 0x02, 0x20, 0x21
F_RECIPIENT, F_SIGNATURE, F_COMPRESSED, F_ROUTE = 0x01, 0x02, 0x04, 0x08
BROADCAST = b"\xff" * 8
PAYLOAD_MAX = 1_179_760
TTL_DEFAULT = TTL_CAP = 7
SKEW_MS = 120_000
DEDUP_SECONDS, DEDUP_ENTRIES = 300.0, 4096
ASSEMBLY_SECONDS, ASSEMBLIES_MAX = 30.0, 128
STREAM_MAX, STREAM_STALL = 8 << 20, 0.25


class Refused(Exception):
    """A decoder's refusal, with the page's error code."""


class Truncated(Refused):
    def __init__(self):
        super().__init__("truncated")


@dataclass
class Packet:
    version: int
    type: int
    ttl: int
    timestamp: int
    flags: int
    sender: bytes
    recipient: bytes | None
    payload: bytes          # decompressed
    end: int                # offset just past the frame (before any padding)


def _need(data: bytes, end: int):
    if end > len(data):
        raise Truncated()


def _inflate(data: bytes, size: int) -> bytes:
    """BITCHAT-W6: raw DEFLATE first, then zlib; the stream must end exactly at the end and
    give exactly `size` bytes."""
    for wbits in (-15, 15):
        d = zlib.decompressobj(wbits)
        try:
            out = d.decompress(data, size + 1)
            if d.unconsumed_tail:
                continue
            out += d.flush()
        except zlib.error:
            continue
        if d.eof and not d.unused_data and len(out) == size:
            return out
    raise Refused("badCompression")


def decode(data: bytes, start: int = 0) -> Packet:
    """Reads one frame at `start` (BITCHAT-W1); says nothing about what follows it."""
    _need(data, start + 1)
    version = data[start]
    if version not in (1, 2):
        raise Refused("unknownType")
    header = 14 if version == 1 else 16
    _need(data, start + header)
    kind, ttl = data[start + 1], data[start + 2]
    timestamp = int.from_bytes(data[start + 3:start + 11], "big")
    flags = data[start + 11]
    length = int.from_bytes(data[start + 12:start + header], "big")
    if length > PAYLOAD_MAX:
        raise Refused("tooLarge")
    at = start + header
    _need(data, at + 8)
    sender = data[at:at + 8]; at += 8
    recipient = None
    if flags & F_RECIPIENT:
        _need(data, at + 8)
        recipient = data[at:at + 8]; at += 8
    if version == 2 and flags & F_ROUTE:
        _need(data, at + 1)
        hops = data[at]
        if hops == 0:
            raise Refused("valueOutOfRange")
        at += 1 + 8 * hops
        _need(data, at)
    _need(data, at + length)
    section = data[at:at + length]; at += length
    if flags & F_SIGNATURE:
        _need(data, at + 64)
        at += 64
    if flags & F_COMPRESSED:
        width = 2 if version == 1 else 4
        if length <= width:
            raise Refused("lengthMismatch")
        size = int.from_bytes(section[:width], "big")
        if size > PAYLOAD_MAX:
            raise Refused("tooLarge")
        if size > 50_000 * (length - width):
            raise Refused("ratioTooHigh")
        if size == 0:
            raise Refused("badCompression")
        payload = _inflate(section[width:], size)
    else:
        payload = section
    return Packet(version, kind, ttl, timestamp, flags, sender, recipient, payload, at)


def pad_length(data: bytes, end: int) -> int | None:
    """BITCHAT-W7: the length of one PKCS#7 pad at `end` running to the end of `data`, 0 when
    nothing follows, None when what follows is not exactly one pad."""
    rest = len(data) - end
    if rest == 0:
        return 0
    p = data[-1]
    return rest if p == rest and data[end:] == bytes([p]) * p else None


def encode(kind: int, ttl: int, timestamp: int, sender: bytes, payload: bytes,
           recipient: bytes | None = None) -> bytes:
    """A version-1 frame, uncompressed, unsigned, unpadded."""
    flags = F_RECIPIENT if recipient else 0
    return (bytes([1, kind, ttl]) + timestamp.to_bytes(8, "big") + bytes([flags])
            + len(payload).to_bytes(2, "big") + sender + (recipient or b"") + payload)


def dedup_key(p: Packet) -> str:
    """BITCHAT-R3."""
    return f"{p.sender.hex()}-{p.timestamp}-{p.type}-{hashlib.sha256(p.payload).digest()[:4].hex()}"


def decode_fragment(payload: bytes) -> tuple | None:
    """BITCHAT-W8: (fragmentID, index, total, originalType, data), or None when refused."""
    if len(payload) < 13:
        return None
    index, total = int.from_bytes(payload[8:10], "big"), int.from_bytes(payload[10:12], "big")
    if not 1 <= total <= 10_000 or index >= total:
        return None
    return payload[:8], index, total, payload[12], payload[13:]


class Stream:
    """BITCHAT-G2: a link's values assembled into frames by their own lengths."""

    def __init__(self):
        self.pending = b""
        self.since = 0.0

    def frames(self, value: bytes, now: float) -> list[bytes]:
        # A held partial frame is continued, unless it stalled or the new value stands on its
        # own (a sender that writes one frame per value: a truncated value is then just refused).
        if self.pending and (now - self.since > STREAM_STALL or _whole(value)):
            log.info("dropped %d bytes of an unfinished frame", len(self.pending))
            self.pending = b""
        data = self.pending + value
        self.pending = b""
        out, pos = [], 0
        while pos < len(data):
            try:
                packet = decode(data, pos)
            except Truncated:
                if len(data) - pos <= STREAM_MAX:
                    self.pending, self.since = data[pos:], now
                break
            except Refused as error:
                log.info("refused (%s): %s", error, data[pos:pos + 24].hex())
                break
            end = packet.end
            pad = pad_length(data, end)
            if pad is None:
                # Bytes after the frame: another frame, a pad run then another frame, or junk.
                if data[end] in (1, 2):
                    pad = 0
                elif (p := data[end]) and data[end:end + p] == bytes([p]) * p and end + p < len(data) \
                        and data[end + p] in (1, 2):
                    pad = p
                else:
                    log.info("refused (trailingBytes) after a frame of %d bytes", end - pos)
                    break
            out.append(data[pos:end + pad])
            pos = end + pad
        return out


def _whole(value: bytes) -> bool:
    try:
        packet = decode(value)
    except Refused:
        return False
    return pad_length(value, packet.end) is not None or value[packet.end] in (1, 2)


class Node:
    def __init__(self, host, peer_id: bytes, nickname: str, rng, bugs: set[str], announce_every: float):
        self.host, self.peer_id, self.nickname, self.rng, self.bugs = host, peer_id, nickname, rng, bugs
        self.announce_every = announce_every
        self.seen: OrderedDict[str, float] = OrderedDict()
        self.assemblies: OrderedDict[tuple[bytes, bytes], dict] = OrderedDict()
        self.streams: dict[int, Stream] = {}
        self.last_timestamp = 0
        # The app announces its Noise and signing public keys; meshconform does not read them,
        # but a real announce carries them, so this one does too (random, per identity).
        self.keys = bytes(rng.getrandbits(8) for _ in range(64))
        self.delivered = 0

    def describe(self) -> str:
        return f"bitchat peer id {self.peer_id.hex()}"

    # -- links -----------------------------------------------------------------------------------
    def link_up(self, link: int):
        log.info("link %d up", link)
        self.streams[link] = Stream()
        self.announce()

    def link_down(self, link: int):
        log.info("link %d down", link)
        self.streams.pop(link, None)

    def start(self):
        if self.announce_every > 0:
            self.host.schedule(self.announce_every, self._periodic_announce)

    def _periodic_announce(self):
        self.announce()
        self.host.schedule(self.announce_every * self.rng.uniform(0.8, 1.2), self._periodic_announce)

    # -- originating (BITCHAT-R2) ----------------------------------------------------------------
    def _timestamp(self) -> int:
        self.last_timestamp = max(self.host.now_ms(), self.last_timestamp + 1)
        return self.last_timestamp

    def announce(self):
        """The app's announce: TLVs nickname (0x01), Noise key (0x02), signing key (0x03)."""
        name = self.nickname.encode()[:255]
        payload = bytes([0x01, len(name)]) + name + bytes([0x02, 32]) + self.keys[:32] + bytes([0x03, 32]) + self.keys[32:]
        self.originate(ANNOUNCE, payload)

    def originate(self, kind: int, payload: bytes, recipient: bytes | None = None):
        frame = encode(kind, TTL_DEFAULT, self._timestamp(), self.peer_id, payload, recipient)
        self._record(dedup_key(decode(frame)))
        for link in self.host.links():
            self.host.send(link, frame)

    # -- receiving -------------------------------------------------------------------------------
    def receive(self, link: int, value: bytes):
        stream = self.streams.setdefault(link, Stream())
        for frame in stream.frames(value, self.host.now()):
            self._handle(link, frame)

    def _record(self, key: str):
        self.seen[key] = self.host.now()
        self.seen.move_to_end(key)
        while len(self.seen) > DEDUP_ENTRIES:
            self.seen.popitem(last=False)

    def _is_duplicate(self, key: str) -> bool:
        now = self.host.now()
        while self.seen:  # entries older than the retention are forgotten, oldest first
            oldest, at = next(iter(self.seen.items()))
            if now - at <= DEDUP_SECONDS:
                break
            del self.seen[oldest]
        return key in self.seen

    def _handle(self, link: int, frame: bytes):
        packet = decode(frame)
        if abs(packet.timestamp - self.host.now_ms()) > SKEW_MS:  # BITCHAT-R4
            log.info("link %d: stale packet from %s dropped", link, packet.sender.hex())
            return
        fragment = None
        if packet.type == FRAGMENT:
            fragment = decode_fragment(packet.payload)
            if fragment is None:  # BITCHAT-W8: refused, so dropped without a trace
                log.info("link %d: fragment payload refused", link)
                return
        key = dedup_key(packet)
        exempt = "no-dedup" in self.bugs or ("flood-fragments" in self.bugs and packet.type == FRAGMENT)
        if self._is_duplicate(key) and not exempt:
            log.info("link %d: duplicate %s", link, key)
            return
        self._record(key)
        for_me = packet.recipient == self.peer_id
        for_all = packet.recipient is None or packet.recipient == BROADCAST
        if packet.type == MESSAGE and (for_me or for_all):
            self._deliver(packet)
        elif packet.type == FRAGMENT and (for_me or for_all):
            if not self._reassemble(packet.sender, fragment):
                return  # BITCHAT-R8.5: a fragment that disagrees with its assembly is not relayed either
        elif packet.type == ANNOUNCE:
            log.info("link %d: announce from %s", link, packet.sender.hex())
        # BITCHAT-R6: relay unless own, link-local, for me; BITCHAT-R5: TTL capped at 7 first.
        if packet.sender == self.peer_id or packet.type == REQUEST_SYNC or for_me:
            return
        ttl = min(packet.ttl, TTL_CAP)
        if ttl <= 1:
            return
        relayed = bytearray(frame)
        relayed[2] = ttl - 1  # byte for byte but the TTL (BITCHAT-R6.4)
        targets = [l for l in self.host.links() if l != link or "relay-to-sender" in self.bugs]
        if targets:
            self.host.schedule(self.rng.uniform(0.010, 0.060), lambda: self._relay(bytes(relayed), targets))

    def _relay(self, frame: bytes, targets: list[int]):
        up = set(self.host.links())
        for link in targets:
            if link in up:
                self.host.send(link, frame)

    def _deliver(self, packet: Packet):
        self.delivered += 1
        print(f"deliver from {packet.sender.hex()}: {packet.payload[:60]!r}", flush=True)

    # -- fragments (BITCHAT-R8) ------------------------------------------------------------------
    def _reassemble(self, sender: bytes, fragment: tuple) -> bool:
        """False when the fragment disagrees with the assembly its first fragment started."""
        fragment_id, index, total, claimed, data = fragment
        now = self.host.now()
        for key in [k for k, a in self.assemblies.items() if now - a["since"] > ASSEMBLY_SECONDS]:
            del self.assemblies[key]
        key = (sender, fragment_id)
        assembly = self.assemblies.get(key)
        if assembly is None:
            assembly = self.assemblies[key] = {"since": now, "total": total, "type": claimed, "pieces": {}, "bytes": 0}
            while len(self.assemblies) > ASSEMBLIES_MAX:
                self.assemblies.popitem(last=False)
        if assembly["total"] != total or assembly["type"] != claimed:
            return False
        if index in assembly["pieces"]:
            return True  # the piece already held stays
        if assembly["bytes"] + len(data) > PAYLOAD_MAX + 512:
            del self.assemblies[key]
            return True
        assembly["pieces"][index] = data
        assembly["bytes"] += len(data)
        if len(assembly["pieces"]) < total:
            return True
        del self.assemblies[key]
        whole = b"".join(assembly["pieces"][i] for i in range(total))
        try:
            inner = decode(whole)
        except Refused as error:
            log.info("reassembled frame refused (%s)", error)
            return True
        if pad_length(whole, inner.end) is None or inner.type != claimed or inner.type == FRAGMENT:
            return True
        inner_key = dedup_key(inner)
        if self._is_duplicate(inner_key) and "no-dedup" not in self.bugs:
            return True
        self._record(inner_key)
        if inner.type == MESSAGE and (inner.recipient in (None, BROADCAST, self.peer_id)):
            self._deliver(inner)
        return True
