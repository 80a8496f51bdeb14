"""Shared helpers of the meshconform vector generators.

Independent of the Swift codecs on purpose: the valid bytes of every vector file are built
here, with Python's struct / base64 / hashlib / cryptography, and JSON text is written by
`fjson` below, which emulates Foundation's `JSONEncoder` with `.sortedKeys` byte for byte.
The emulation was checked against a real Foundation (swift-foundation, Swift 6.3 on Linux):
- compact output, keys sorted by their UTF-8 bytes;
- strings: `"` -> `\\"`, `\\` -> `\\\\`, `/` -> `\\/`, 0x08 0x0c 0x0a 0x0d 0x09 as `\\b \\f \\n \\r \\t`,
  other bytes below 0x20 as `\\u00xx` (lowercase hex), everything else (0x7f, non-ASCII) raw UTF-8;
- integers in decimal; a Double as Swift's `description` with a trailing ".0" removed
  (767923200.0 -> `767923200`, 767923200.123 -> `767923200.123`, 1e21 -> `1e+21`,
  1e-7 -> `1e-07`, 9.5e15 -> `9.5e+15`: Swift switches to exponent form above 2^53,
  Python's repr only from 1e16, which `swift_double` corrects);
- `Data` as standard base64 with padding; `UUID` as its uppercase `uuidString`.

No randomness, no clock: every UUID, key, nonce and timestamp is a constant.
"""

import base64
import json
import os
import sys
import uuid as _uuid

VECTORS_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Where files are written: Vectors/ itself, or another folder (generate_all.py --out DIR) so CI
# can check that the committed files are exactly what the generators produce.
OUT_DIR = VECTORS_DIR

# The seconds in the examples: 2025-05-03T00:00:00Z.
UNIX_2025_05_03 = 1746230400          # seconds since 1970 (relay createdAt)
REF_2025_05_03 = 767923200            # seconds since 2001-01-01 (Foundation's reference date)
ISO_2025_05_03 = "2025-05-03T00:00:00Z"


# ---------------------------------------------------------------- JSON text (Foundation emulation)

class Raw:
    """Literal JSON text put as is (to write `8.0`, `1e400`, a bad value, ...)."""

    def __init__(self, text):
        self.text = text


class Obj:
    """A JSON object written in the given member order (may repeat keys), not sorted."""

    def __init__(self, *pairs):
        self.pairs = list(pairs)


def swift_double(v):
    """Swift's `Double.description`, minus a trailing ".0", as JSONEncoder writes it."""
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError("JSONEncoder refuses non-finite doubles")
    r = repr(float(v))
    if "e" not in r and "E" not in r and abs(v) > 2 ** 53:
        sign = "-" if r.startswith("-") else ""
        intpart = r.lstrip("-").split(".")[0]
        exp = len(intpart) - 1
        mant = intpart.rstrip("0")
        m = mant[0] + ("." + mant[1:] if len(mant) > 1 else "")
        r = "%s%se+%02d" % (sign, m, exp)
    if r.endswith(".0"):
        r = r[:-2]
    return r


def fstring(s):
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "/":
            out.append("\\/")
        elif c == 0x08:
            out.append("\\b")
        elif c == 0x0C:
            out.append("\\f")
        elif c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif c < 0x20:
            out.append("\\u%04x" % c)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def fjson_text(v, sort=True):
    if isinstance(v, Raw):
        return v.text
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return swift_double(v)
    if isinstance(v, str):
        return fstring(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(fjson_text(e, sort) for e in v) + "]"
    if isinstance(v, Obj):
        return "{" + ",".join(fstring(k) + ":" + fjson_text(e, sort) for k, e in v.pairs) + "}"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-8")) if sort else list(v.keys())
        return "{" + ",".join(fstring(k) + ":" + fjson_text(v[k], sort) for k in keys) + "}"
    raise TypeError(type(v))


def fjson(v, sort=True):
    """JSON bytes as Foundation's JSONEncoder(.sortedKeys) writes `v` (sort=False keeps dict order,
    which is what the apps' plain JSONEncoder writes on swift-foundation: declaration order)."""
    return fjson_text(v, sort).encode("utf-8")


# ---------------------------------------------------------------- value conventions

def b64(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def hexs(data):
    return bytes(data).hex()


def uid(n):
    """A fixed UUID, uppercase (uuidString): generator-local constants, no randomness."""
    return str(_uuid.UUID(int=n)).upper()


def uuid_from_bytes(b16):
    return str(_uuid.UUID(bytes=bytes(b16))).upper()


def u64(n):
    """A UInt64 in the neutral form: decimal text."""
    return str(n)


# ---------------------------------------------------------------- files

TEST_KEYS = {"tcId", "comment", "flags", "hex", "result", "canonical", "decoded", "error", "context", "apps"}


def V(comment, data, decoded, canonical=True, flags=(), context=None, apps=None):
    t = {"comment": comment, "flags": list(flags), "hex": hexs(data), "result": "valid",
         "canonical": canonical, "decoded": decoded}
    if context is not None:
        t["context"] = context
    return with_apps(t, apps)


def with_apps(t, apps):
    """`apps`: what real implementations answer, from their source: {"bitchat-ios": "refuse"}."""
    if apps:
        assert all(v in ("accept", "refuse") for v in apps.values()), apps
        t["apps"] = dict(apps)
    return t


def I(comment, data, error, flags=(), context=None, apps=None):
    t = {"comment": comment, "flags": list(flags), "hex": hexs(data), "result": "invalid", "error": error}
    if context is not None:
        t["context"] = context
    return with_apps(t, apps)


def A(comment, data, error=None, decoded=None, flags=(), context=None, apps=None):
    t = {"comment": comment, "flags": list(flags), "hex": hexs(data), "result": "acceptable"}
    if error is not None:
        t["error"] = error
    if decoded is not None:
        t["decoded"] = decoded
    if context is not None:
        t["context"] = context
    return with_apps(t, apps)


ERROR_CODES = {"truncated", "lengthMismatch", "trailingBytes", "unknownType", "badJSON", "tooDeep",
               "duplicateKey", "missingField", "wrongType", "valueOutOfRange", "ttlOutOfRange", "badUUID",
               "badBase64", "badDate", "chunkIndexOutOfRange", "tooLarge", "authenticationFailed", "badKey"}
ERROR_CODES |= {"outOfOrder", "misplacedMarker", "badName"}  # peat (docs/dialects/peat.md)
ERROR_CODES |= {"badCompression", "ratioTooHigh"}  # bitchat


def write_file(fmt, dialect, source, notes, tests, min_tests=12, min_invalid=5):
    """Assigns tcIds 1... in list order, checks the file's rules, writes Vectors/<fmt>.json."""
    problems = []
    for i, t in enumerate(tests, 1):
        t["tcId"] = i
        unknown = set(t) - TEST_KEYS
        if unknown:
            problems.append("tc %d: unknown keys %s" % (i, sorted(unknown)))
        for f in t["flags"]:
            if f not in notes:
                problems.append("tc %d: flag %s not in notes" % (i, f))
        if t.get("error") is not None and t["error"] not in ERROR_CODES:
            problems.append("tc %d: error %s undocumented" % (i, t["error"]))
        if t["result"] == "valid" and ("decoded" not in t or "canonical" not in t):
            problems.append("tc %d: valid without decoded/canonical" % i)
        if t["result"] == "invalid" and "error" not in t:
            problems.append("tc %d: invalid without error" % i)
    seen = set()
    for t in tests:
        key = (t["hex"], json.dumps(t.get("context"), sort_keys=True))
        if key in seen:
            problems.append("tc %d: same bytes and context as an earlier test" % t["tcId"])
        seen.add(key)
    used = {f for t in tests for f in t["flags"]}
    for f in notes:
        if f not in used:
            problems.append("note %s is never used" % f)
    n_invalid = sum(1 for t in tests if t["result"] == "invalid")
    if len(tests) < min_tests:
        problems.append("%d tests, need >= %d" % (len(tests), min_tests))
    if n_invalid < min_invalid:
        problems.append("%d invalid tests, need >= %d" % (n_invalid, min_invalid))
    if problems:
        sys.exit("%s: %s" % (fmt, "; ".join(problems)))
    doc = {"format": fmt, "dialect": dialect, "version": 1, "source": source, "notes": notes, "tests": tests}
    path = os.path.join(OUT_DIR, fmt + ".json")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    counts = {r: sum(1 for t in tests if t["result"] == r) for r in ("valid", "invalid", "acceptable")}
    print("%-28s %3d tests (%d valid, %d invalid, %d acceptable)" % (
        path if OUT_DIR != VECTORS_DIR else os.path.relpath(path, os.path.dirname(VECTORS_DIR)), len(tests),
        counts["valid"], counts["invalid"], counts["acceptable"]))
    return path
