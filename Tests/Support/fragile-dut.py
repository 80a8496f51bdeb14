#!/usr/bin/env python3
"""A deliberately fragile DUT for the over-the-air fuzzer's proof (docs/fuzzing.md, "Over the air").

It speaks the stdio DUT protocol (docs/stdio-dut.md) and floods: every unit received on a link
is sent unchanged on every other link that is up, so a valid message passes the liveness
probe. It has one planted bug: a unit holding the text 1e999 (a JSON number beyond a double's
range) makes it exit with status 3, as a parser that trusts its float conversion would. Any
other input, however broken, is forwarded and survives.

--hang makes the bug a hang instead: after that unit it reads nothing more and never exits
(until it is killed), as a parser stuck in a loop would.

It has no timers, so it takes the tester's clock (docs/stdio-dut.md section 6) at no cost:
when `start` asks for it, it confirms in `ready` and answers every later line with `idle`
and no next timer.

Needs only the Python standard library.
"""
import json
import sys
import time

MAGIC = b"1e999"


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    hang = "--hang" in sys.argv[1:]
    links = set()
    tester_clock = False
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            tester_clock = message.get("clock") == "tester"
            say({"type": "ready", "version": 1, **({"clock": "tester"} if tester_clock else {})})
            continue
        elif kind == "link-up":
            links.add(message["link"])
        elif kind == "link-down":
            links.discard(message["link"])
        elif kind == "rx":
            unit = bytes.fromhex(message["hex"])
            if MAGIC in unit:
                sys.stderr.write("fragile-dut: float overflow parsing %d-byte unit\n" % len(unit))
                sys.stderr.flush()
                while hang:
                    time.sleep(60)
                sys.exit(3)
            for link in sorted(links - {message["link"]}):
                say({"type": "tx", "link": link, "hex": message["hex"]})
        elif kind == "stop":
            return
        if tester_clock:
            say({"type": "idle", "nextUs": None})


if __name__ == "__main__":
    main()
