"""The stdio DUT protocol's plumbing (docs/stdio-dut.md) shared by bitchat-dut.py and
blemesh-dut.py: the start/ready handshake, the node's clock (its own monotonic clock or the
tester's, section 6.1), a timer heap, and the loop that feeds the tester's lines to a node.

A node is any object with `link_up(link, peer)`, `link_down(link)`, `received(data, link)`;
it schedules work with `timers.later(seconds, callback)` and writes with `emit(...)`.
"""
import heapq
import json
import math
import os
import select
import sys
import time


def emit(**message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(text):
    emit(type="log", text=text)


class Clock:
    """Seconds since start: this process's monotonic clock, or the tester's last `time` line."""

    def __init__(self, tester_driven):
        self.tester_driven, self.told_us, self.origin = tester_driven, 0, time.monotonic()

    def now(self):
        return self.told_us / 1e6 if self.tester_driven else time.monotonic() - self.origin


class Timers:
    def __init__(self, clock):
        self.clock, self.heap, self.count = clock, [], 0

    def later(self, delay, callback):
        self.count += 1
        heapq.heappush(self.heap, (self.clock.now() + delay, self.count, callback))

    def run_due(self):
        while self.heap and self.heap[0][0] <= self.clock.now():
            heapq.heappop(self.heap)[2]()

    def seconds_to_next(self):
        return max(0.0, self.heap[0][0] - self.clock.now()) if self.heap else None

    def next_us(self):
        """For `idle`: the first whole microsecond at which the earliest timer is due."""
        if not self.heap:
            return None
        when = self.heap[0][0]
        us = math.ceil(when * 1e6)
        return us if us / 1e6 >= when else us + 1


class Reader:
    """The tester's lines on stdin; unread lines stay pending from one `messages` to the next."""

    def __init__(self, fd):
        self.fd, self.pending = fd, b""

    def messages(self, timers=None):
        """The tester's messages; while waiting, runs due timers (own clock only)."""
        while True:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                if line.strip():
                    yield json.loads(line)
            if timers:
                timers.run_due()
            ready, _, _ = select.select([self.fd], [], [], timers.seconds_to_next() if timers else None)
            if ready:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    return  # end of file: the tester is gone
                self.pending += chunk


def serve(dialect, make_node):
    """Runs one DUT process: `make_node(start, clock, timers)` builds the node from the start
    line; then every tester line is handed to it until `stop` or end of file."""
    reader = Reader(sys.stdin.fileno())
    start = next(reader.messages(), None)
    if start is None or start.get("type") != "start" or start.get("version") != 1 or start.get("dialect") != dialect:
        sys.exit(f"{dialect}-dut: expected a version 1 start line for the {dialect} dialect, got {start}")
    clock = Clock(start.get("clock") == "tester")
    timers = Timers(clock)
    node = make_node(start, clock, timers)
    emit(type="ready", version=1, **({"clock": "tester"} if clock.tester_driven else {}))
    # On the tester's clock nothing happens between the tester's lines: block without timeout.
    for message in reader.messages(None if clock.tester_driven else timers):
        kind = message.get("type")
        if kind == "link-up":
            node.link_up(message["link"], message.get("peer"), message.get("maxUnit"))
        elif kind == "link-down":
            node.link_down(message["link"])
        elif kind == "rx":
            node.received(bytes.fromhex(message["hex"]), message["link"])
        elif kind == "time":
            clock.told_us = max(clock.told_us, message["nowUs"])
            timers.run_due()
        elif kind == "stop":
            return
        # `send` and later protocol versions' types: ignored (no upper tester).
        if clock.tester_driven:
            emit(type="idle", nextUs=timers.next_us())


def run(dialect, make_node):
    try:
        serve(dialect, make_node)
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the tester went away
