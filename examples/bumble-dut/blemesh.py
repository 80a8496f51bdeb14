"""blemesh, written from docs/dialects/blemesh.md: the JSON formats (section 2) and the node
rules (section 3). The node does no I/O: dut.py gives it a clock, a scheduler and a send
function, and radio.py tells it link_up / link_down / receive / neighbour_id.
"""
from __future__ import annotations

import base64
import json
import logging
import math
import re
import uuid
from collections import OrderedDict
from datetime import datetime, timezone
from decimal import Decimal

log = logging.getLogger("bumble-dut")

SERVICE = "12345678-1234-5678-1234-567812345678"
MESSAGE_CHARACTERISTIC = "12345678-1234-5678-1234-567812345679"
DEVICE_ID_CHARACTERISTIC = "12345678-1234-5678-1234-56781234567A"

CHUNK_MAX, CHUNKS_MAX, PIECE_MAX = 512, 1024, 162
ENVELOPE_MAX = 65_536
TTL_USER, TTL_ANNOUNCE, TTL_RREQ = 3, 2, 3
DEDUP_SECONDS, DEDUP_ENTRIES = 300.0, 4096
REASSEMBLY_SECONDS, REASSEMBLIES_MAX = 300.0, 64
ROUTE_SECONDS = 300.0
EPOCH_2001 = 978_307_200.0
CONTROL_TYPES = ("RREQ", "RREP", "RERR", "ANNOUNCE", "ACK", "READ")


class Refused(Exception):
    """A decoder's refusal, with the page's error code."""


# -- JSON conventions (BLEMESH-W5) -------------------------------------------------------------
UUID_RE = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
B64_RE = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$")
DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})$")


def _object(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Refused("duplicateKey")
    return dict(pairs)


def _bad_constant(_name):
    raise Refused("badJSON")


def load(data: bytes, limit: int) -> dict:
    if len(data) > limit:
        raise Refused("tooLarge")
    try:
        text = data.decode("utf-8")
        value = json.loads(text, object_pairs_hook=_object, parse_float=Decimal, parse_constant=_bad_constant)
    except Refused:
        raise
    except RecursionError:
        raise Refused("tooDeep")
    except json.JSONDecodeError as error:
        # Input that ends inside the JSON text is cut, not malformed.
        raise Refused("truncated" if error.pos >= len(text) or error.msg.startswith("Unterminated") else "badJSON")
    except (UnicodeDecodeError, ValueError):
        raise Refused("badJSON")
    if _depth(value) > 32:
        raise Refused("tooDeep")
    if not _finite(value):  # Foundation refuses a number no Double holds, wherever it is
        raise Refused("valueOutOfRange")
    if not isinstance(value, dict):
        raise Refused("wrongType")
    return value


def _depth(value, level=1) -> int:
    if isinstance(value, dict):
        return max([level] + [_depth(v, level + 1) for v in value.values()])
    if isinstance(value, list):
        return max([level] + [_depth(v, level + 1) for v in value])
    return level


def _finite(value) -> bool:
    if isinstance(value, Decimal):
        return math.isfinite(float(value))
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def dump(value: dict) -> bytes:
    """Canonical encoding: keys sorted, no whitespace, `\\/` escaped, optionals absent."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("/", "\\/").encode("utf-8")


def _field(obj: dict, key: str, required: bool = True):
    value = obj.get(key)
    if value is None:
        if required:
            raise Refused("missingField" if key not in obj else "wrongType")
        return None
    return value


def _uuid(obj, key, required=True) -> str | None:
    value = _field(obj, key, required)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Refused("wrongType")
    if not UUID_RE.match(value):
        raise Refused("badUUID")
    return value.upper()


def _uuids(obj, key) -> list[str]:
    value = _field(obj, key)
    if not isinstance(value, list):
        raise Refused("wrongType")
    out = []
    for item in value:
        if not isinstance(item, str):
            raise Refused("wrongType")
        if not UUID_RE.match(item):
            raise Refused("badUUID")
        out.append(item.upper())
    return out


def _string(obj, key, required=True) -> str | None:
    value = _field(obj, key, required)
    if value is not None and not isinstance(value, str):
        raise Refused("wrongType")
    return value


def _bool(obj, key) -> bool:
    value = _field(obj, key)
    if not isinstance(value, bool):
        raise Refused("wrongType")
    return value


def _int(obj, key, low: int, high: int, code: str = "valueOutOfRange") -> int:
    value = _field(obj, key)
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise Refused("wrongType")
    if isinstance(value, Decimal):
        if not value.is_finite() or value != value.to_integral_value():
            raise Refused("wrongType")
        value = int(value)
    if not low <= value <= high:
        raise Refused(code)
    return value


def _number(obj, key) -> float:
    value = _field(obj, key)
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise Refused("wrongType")
    if isinstance(value, Decimal) and not value.is_finite():
        raise Refused("valueOutOfRange")
    return float(value)


def _base64(obj, key, required=True) -> bytes | None:
    value = _field(obj, key, required)
    if value is None:
        return None
    if not isinstance(value, str):
        raise Refused("wrongType")
    if not B64_RE.match(value):
        raise Refused("badBase64")
    return base64.b64decode(value)


def _date(obj, key) -> str:
    value = _field(obj, key)
    if not isinstance(value, str):
        raise Refused("wrongType")
    m = DATE_RE.match(value)
    if not m:
        raise Refused("badDate")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise Refused("badDate")
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- formats ------------------------------------------------------------------------------------
def decode_chunk(value: bytes) -> dict:
    """BLEMESH-W1."""
    obj = load(value, CHUNK_MAX)
    message_id = _uuid(obj, "messageID")
    index = _int(obj, "chunkIndex", -(1 << 63), (1 << 63) - 1)
    total = _int(obj, "totalChunks", -(1 << 63), (1 << 63) - 1)
    _int(obj, "flags", 0, 255)
    payload = _base64(obj, "payload")
    if not 1 <= total <= CHUNKS_MAX or not 0 <= index < total:
        raise Refused("chunkIndexOutOfRange")
    return {"messageID": message_id, "index": index, "total": total, "payload": payload}


def decode_envelope(data: bytes) -> dict:
    """BLEMESH-W2; returns the envelope's fields in their canonical form (unknown keys dropped)."""
    obj = load(data, ENVELOPE_MAX)
    env = {
        "id": _uuid(obj, "id"), "originID": _uuid(obj, "originID"), "originName": _string(obj, "originName"),
        "timestamp": _date(obj, "timestamp"),
        "sequenceNumber": _int(obj, "sequenceNumber", 0, (1 << 64) - 1),
        "ttl": _int(obj, "ttl", 0, 255, "ttlOutOfRange"),
        "hopPath": _uuids(obj, "hopPath"),
        "isControlMessage": _bool(obj, "isControlMessage"), "isEncrypted": _bool(obj, "isEncrypted"),
        "isGroupMessage": _bool(obj, "isGroupMessage"),
    }
    _base64(obj, "payload")
    env["payload"] = obj["payload"]
    for key in ("destinationID", "conversationID"):
        if (value := _uuid(obj, key, required=False)) is not None:
            env[key] = value
    if _base64(obj, "signature", required=False) is not None:
        env["signature"] = obj["signature"]
    return env


def decode_control(data: bytes) -> tuple[str, dict]:
    """BLEMESH-W3 and W4: the control message and its inner message."""
    obj = load(data, ENVELOPE_MAX)
    kind = _string(obj, "type")
    if kind not in CONTROL_TYPES:
        raise Refused("unknownType")
    return kind, decode_inner(kind, _base64(obj, "payload"))


def decode_inner(kind: str, data: bytes) -> dict:
    """BLEMESH-W4: the inner message of a control message of type `kind` (section 2.4)."""
    inner = load(data, ENVELOPE_MAX)
    out: dict = {"timestamp": _number(inner, "timestamp")}
    ids = {"RREQ": ("requestID", "originID", "destinationID"), "RREP": ("requestID", "originID", "destinationID"),
           "RERR": ("errorID", "unreachableID", "reporterID"), "ANNOUNCE": ("deviceID",),
           "ACK": ("messageID", "receiverID"), "READ": ("messageID", "readerID", "originalSenderID")}[kind]
    for key in ids:
        out[key] = _uuid(inner, key)
    if kind in ("RREQ", "RREP"):
        out["hopCount"] = _int(inner, "hopCount", 0, 255, "ttlOutOfRange")
        out["hopPath"] = _uuids(inner, "hopPath")
        name = "originName" if kind == "RREQ" else "destinationName"
        out[name] = _string(inner, name)
    if kind == "RREQ":
        out["ttl"] = _int(inner, "ttl", 0, 255, "ttlOutOfRange")
    if kind == "RERR":
        out["affectedDestinations"] = _uuids(inner, "affectedDestinations")
    if kind == "ANNOUNCE":
        out["deviceName"] = _string(inner, "deviceName")
        out["hopCount"] = _int(inner, "hopCount", 0, 255, "ttlOutOfRange")
    return out


def encode_chunks(envelope: bytes, message_id: str, limit: int) -> list[bytes]:
    """BLEMESH-R3: pieces of at most 162 bytes, smaller when a chunk would not fit `limit`."""
    piece = PIECE_MAX
    while True:
        pieces = [envelope[i:i + piece] for i in range(0, len(envelope), piece)] or [b""]
        chunks = []
        for i, p in enumerate(pieces):
            flags = (0x01 if i == 0 else 0) | (0x02 if i == len(pieces) - 1 else 0)
            chunks.append(dump({"messageID": message_id, "chunkIndex": i, "totalChunks": len(pieces),
                                "flags": flags, "payload": base64.b64encode(p).decode()}))
        if max(len(c) for c in chunks) <= limit or piece <= 3:
            return chunks
        piece -= 3


class Node:
    def __init__(self, host, device_id: str, name: str, rng, bugs: set[str], announce_every: float):
        self.host, self.id, self.name, self.rng, self.bugs = host, device_id.upper(), name, rng, bugs
        self.announce_every = announce_every
        self.sequence = 0                                   # BLEMESH-R2: shared by every envelope
        self.seen: OrderedDict[str, float] = OrderedDict()  # BLEMESH-R5
        self.requests: OrderedDict[str, float] = OrderedDict()  # BLEMESH-R15.1
        self.assemblies: OrderedDict[tuple[int, str], dict] = OrderedDict()  # BLEMESH-R4
        self.neighbours: dict[int, str] = {}                # link -> device id (BLEMESH-R1)
        self.routes: dict[str, dict] = {}                   # destination -> next hop, hops, path, since
        self.reverse: dict[str, int] = {}                   # RREQ origin -> link it came by
        self.delivered = 0

    def describe(self) -> str:
        return f"blemesh device id {self.id}"

    def start(self):
        if self.announce_every > 0:
            self.host.schedule(self.announce_every, self._periodic_announce)

    def _periodic_announce(self):
        self._announce_all()
        self.host.schedule(self.announce_every * self.rng.uniform(0.8, 1.2), self._periodic_announce)

    # -- links -----------------------------------------------------------------------------------
    def link_up(self, link: int):
        log.info("link %d up", link)
        self._announce_all()  # BLEMESH-R14

    def neighbour_id(self, link: int, value: bytes):
        text = value.decode("utf-8", "replace")
        if UUID_RE.match(text):
            self.neighbours[link] = text.upper()

    def link_down(self, link: int):
        log.info("link %d down", link)
        for key in [k for k in self.assemblies if k[0] == link]:
            del self.assemblies[key]
        lost = self.neighbours.pop(link, None)
        for origin in [o for o, l in self.reverse.items() if l == link]:
            del self.reverse[origin]
        if lost is None:
            return
        # BLEMESH-R17: routes through the lost neighbour go; if any did, tell the others.
        gone = [d for d, r in self.routes.items() if r["next"] == lost]
        for destination in gone:
            del self.routes[destination]
        if gone and self.host.links():
            self._originate_control("RERR", {"errorID": self._uuid(), "unreachableID": lost, "reporterID": self.id,
                                             "affectedDestinations": gone, "timestamp": self._inner_now()},
                                    TTL_ANNOUNCE, self.host.links())

    # -- originating (BLEMESH-R2, R3) ------------------------------------------------------------
    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4)).upper()

    def _inner_now(self) -> float:
        return self.host.now_unix() - EPOCH_2001

    def _announce_all(self):
        links = self.host.links()
        if links:
            self._originate_control("ANNOUNCE", {"deviceID": self.id, "deviceName": self.name, "hopCount": 0,
                                                 "timestamp": self._inner_now()}, TTL_ANNOUNCE, links)

    def _originate_control(self, kind: str, inner: dict, ttl: int, links: list[int], destination: str | None = None):
        control = dump({"type": kind, "payload": base64.b64encode(dump(inner)).decode()})
        self._originate(control, ttl, links, control=True, destination=destination)

    def _originate(self, payload: bytes, ttl: int, links: list[int], control: bool, destination: str | None = None):
        self.sequence += 1
        env = {"id": self._uuid(), "originID": self.id, "originName": self.name,
               "timestamp": datetime.fromtimestamp(int(self.host.now_unix()), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "sequenceNumber": self.sequence, "ttl": ttl, "hopPath": [self.id], "isControlMessage": control,
               "isEncrypted": False, "isGroupMessage": False, "payload": base64.b64encode(payload).decode()}
        if destination:
            env["destinationID"] = destination
        self._record(self._key(env))
        for link in links:
            self._send(link, env)

    def _send(self, link: int, env: dict):
        data = dump(env)
        for chunk in encode_chunks(data, env["id"], min(CHUNK_MAX, self.host.mtu(link) - 3)):
            self.host.send(link, chunk)

    # -- receiving -------------------------------------------------------------------------------
    def receive(self, link: int, value: bytes):
        try:
            chunk = decode_chunk(value)
        except Refused as error:
            log.info("link %d: value refused (%s)", link, error)
            return
        now = self.host.now()
        for key in [k for k, a in self.assemblies.items() if now - a["since"] > REASSEMBLY_SECONDS]:
            del self.assemblies[key]
        key = (link, chunk["messageID"])
        assembly = self.assemblies.get(key)
        if assembly is None:
            assembly = self.assemblies[key] = {"since": now, "total": chunk["total"], "pieces": {}, "bytes": 0}
            while len(self.assemblies) > REASSEMBLIES_MAX:
                self.assemblies.popitem(last=False)
        if chunk["total"] != assembly["total"] or chunk["index"] in assembly["pieces"]:
            return
        assembly["bytes"] += len(chunk["payload"])
        if assembly["bytes"] > CHUNKS_MAX * PIECE_MAX:  # more than a reassembly may hold
            del self.assemblies[key]
            return
        assembly["pieces"][chunk["index"]] = chunk["payload"]
        if len(assembly["pieces"]) < assembly["total"]:
            return
        del self.assemblies[key]
        data = b"".join(assembly["pieces"][i] for i in range(assembly["total"]))
        try:
            env = decode_envelope(data)
        except Refused as error:
            log.info("link %d: envelope refused (%s)", link, error)
            return
        self._handle(link, env)

    @staticmethod
    def _key(env: dict) -> str:
        return f"{env['id']}-{env['originID']}-{env['sequenceNumber']}"

    def _record(self, key: str):
        self.seen[key] = self.host.now()
        self.seen.move_to_end(key)
        while len(self.seen) > DEDUP_ENTRIES:
            self.seen.popitem(last=False)

    def _held(self, cache: OrderedDict, key: str) -> bool:
        now = self.host.now()
        while cache:
            oldest, at = next(iter(cache.items()))
            if now - at <= DEDUP_SECONDS:
                break
            del cache[oldest]
        return key in cache

    def _handle(self, link: int, env: dict):
        if env["hopPath"] and env["hopPath"][-1] != self.id:
            self.neighbours[link] = env["hopPath"][-1]  # BLEMESH-R1
        key = self._key(env)
        for_me = env.get("destinationID") == self.id
        user = not env["isControlMessage"]
        if self._held(self.seen, key) and "no-dedup" not in self.bugs:
            log.info("link %d: duplicate %s", link, key)
            if user and for_me and not env["isEncrypted"] and "no-reack" not in self.bugs:
                self._ack(link, env)  # BLEMESH-R11: duplicates are re-acked
            return
        self._record(key)
        if env["originID"] == self.id or env["isEncrypted"]:  # BLEMESH-R6.1, R6.7
            return
        destination = env.get("destinationID")
        if env["isControlMessage"]:
            if destination is not None and not for_me:
                self._relay(link, env, directed=True)        # R6.2
            else:
                self._control(link, env)                      # R6.3
        elif destination is None:
            self._deliver(env)                                # R6.4
            self._relay(link, env, directed=False)
        elif for_me:
            self._deliver(env)                                # R6.5
            self._ack(link, env)
        else:
            self._relay(link, env, directed=True)             # R6.6

    def _deliver(self, env: dict):
        self.delivered += 1
        print(f"deliver {env['id']} from {env['originID']}", flush=True)

    def _ack(self, link: int, env: dict):
        inner = {"messageID": env["id"], "receiverID": self.id, "timestamp": self._inner_now()}
        self._originate_control("ACK", inner, min(len(env["hopPath"]) + 1, 255), [link], destination=env["originID"])

    # -- relaying (BLEMESH-R7 to R10) ------------------------------------------------------------
    def _candidates(self, ingress: int | None, path: list[str]) -> list[int]:
        out = []
        for link in self.host.links():
            if link == ingress and "relay-to-sender" not in self.bugs:
                continue
            if self.neighbours.get(link) in path and link != ingress:
                continue
            out.append(link)
        return out

    def _link_to(self, device: str) -> int | None:
        return next((l for l, d in self.neighbours.items() if d == device and l in self.host.links()), None)

    def _route(self, destination: str) -> dict | None:
        route = self.routes.get(destination)
        if route and self.host.now() - route["since"] > ROUTE_SECONDS:
            del self.routes[destination]
            return None
        return route

    def _set_route(self, destination: str, next_hop: str | None, hops: int, path: list[str]):
        if next_hop is None or destination == self.id:
            return
        old = self._route(destination)
        if old is None or hops < old["hops"]:
            self.routes[destination] = {"next": next_hop, "hops": hops, "path": path, "since": self.host.now()}

    def _relay(self, link: int, env: dict, directed: bool):
        if env["ttl"] <= 1:
            return
        candidates = self._candidates(link, env["hopPath"])
        if directed:
            destination = env["destinationID"]
            neighbour = self._link_to(destination)
            route = self._route(destination)
            via = self._link_to(route["next"]) if route else None
            if neighbour in candidates:
                targets = [neighbour]
            elif via in candidates:
                targets = [via]
                route["since"] = self.host.now()
            else:
                targets = candidates
        else:
            k = math.ceil(math.sqrt(len(candidates))) + 1  # BLEMESH-R8
            targets = candidates if k >= len(candidates) else self.rng.sample(candidates, k)
        if not targets:
            return
        relayed = dict(env, ttl=env["ttl"] - 1, hopPath=env["hopPath"] + [self.id])
        degree = len(self.host.links())
        low, high = (0.010, 0.050) if degree < 3 else (0.020, 0.060) if degree < 5 else (0.030, 0.080)
        self.host.schedule(self.rng.uniform(low, high), lambda: self._send_up(targets, relayed))

    def _send_up(self, targets: list[int], env: dict):
        up = set(self.host.links())
        for link in targets:
            if link in up:
                self._send(link, env)

    # -- control messages (BLEMESH-R11, R14 to R17) ----------------------------------------------
    def _control(self, link: int, env: dict):
        try:
            kind, msg = decode_control(base64.b64decode(env["payload"]))
        except Refused as error:
            log.info("link %d: control message refused (%s)", link, error)
            return
        neighbour = self.neighbours.get(link)
        if kind == "ANNOUNCE":
            device = msg["deviceID"]
            if device == self.id:
                return
            self._set_route(device, neighbour, msg["hopCount"] + 1, [])
            if msg["hopCount"] < 2:
                to = self._link_to(device)
                links = [l for l in self.host.links() if l != link and l != to]
                if links:
                    self._originate_control("ANNOUNCE", dict(msg, hopCount=msg["hopCount"] + 1), TTL_ANNOUNCE, links)
        elif kind == "RREQ":
            if self._held(self.requests, msg["requestID"]):
                return
            self.requests[msg["requestID"]] = self.host.now()
            while len(self.requests) > DEDUP_ENTRIES:
                self.requests.popitem(last=False)
            self._set_route(msg["originID"], neighbour, msg["hopCount"] + 1, msg["hopPath"])
            self.reverse[msg["originID"]] = link
            if msg["destinationID"] == self.id:
                reply = {"requestID": msg["requestID"], "originID": msg["originID"], "destinationID": self.id,
                         "destinationName": self.name, "hopCount": 0, "hopPath": list(reversed(msg["hopPath"])),
                         "timestamp": self._inner_now()}
                self._originate_control("RREP", reply, TTL_RREQ, [link])
            elif msg["hopCount"] < msg["ttl"]:
                hops = msg["hopCount"] + 1
                links = [l for l in self.host.links() if l != link and self.neighbours.get(l) not in msg["hopPath"]]
                if links:
                    forward = dict(msg, hopCount=hops, hopPath=msg["hopPath"] + [self.id])
                    self._originate_control("RREQ", forward, max(0, msg["ttl"] - hops), links)
        elif kind == "RREP":
            self._set_route(msg["destinationID"], neighbour, msg["hopCount"] + 1, msg["hopPath"])
            if msg["originID"] == self.id:
                return
            back = self.reverse.get(msg["originID"])
            if back is not None and back in self.host.links():
                self._originate_control("RREP", dict(msg, hopCount=msg["hopCount"] + 1), TTL_RREQ, [back])
        elif kind == "RERR":
            for destination, route in list(self.routes.items()):
                if route["next"] == msg["unreachableID"] or (
                        destination in msg["affectedDestinations"] and route["next"] == msg["reporterID"]):
                    del self.routes[destination]
        # ACK and READ for this node: it has no pending messages of its own to mark.
