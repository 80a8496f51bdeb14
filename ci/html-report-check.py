#!/usr/bin/env python3
"""Checks an HTML report as Chromium rendered it (ci/test, step "HTML report").

usage: html-report-check.py REPORT.json DOM.html SCREENSHOT.png
       html-report-check.py --hostile DOM.html MARKER

- DOM.html (chromium --dump-dom, after the page's script ran) has one row (details.check) per
  check of the JSON report of the same run, in the same order with the same verdicts, and a
  sequence chart (svg.msc) in every FAIL's row, which is open;
- SCREENSHOT.png is not blank: its pixels vary, and the FAIL red is on it.
With --hostile, DOM.html is the report of ci/hostile-dut.py: every element in it is one the
renderer writes, there is one script (the page's own), the title is untouched, and the DUT's
text, MARKER included, is on the page as text.
Standard library only: the PNG is decoded here (8-bit RGB or RGBA, as Chromium writes them).
"""
import html.parser
import json
import struct
import sys
import zlib


class Rows(html.parser.HTMLParser):
    """Rows (details.check) with their attributes and the charts (svg.msc) inside each."""

    def __init__(self):
        super().__init__()
        self.rows, self.depth = [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "details":
            if "check" in classes:
                self.rows.append({"attrs": a, "charts": 0})
                self.depth = 1
            elif self.depth:
                self.depth += 1
        elif tag == "svg" and "msc" in classes and self.depth:
            self.rows[-1]["charts"] += 1

    def handle_endtag(self, tag):
        if tag == "details" and self.depth:
            self.depth -= 1


class Elements(html.parser.HTMLParser):
    """Every element's name, the title, and the text."""

    RENDERER = {"html", "head", "meta", "title", "style", "body", "header", "div", "span", "h1", "dl", "dt", "dd",
                "button", "b", "nav", "input", "main", "details", "summary", "h4", "p", "a", "figure", "figcaption",
                "svg", "line", "g", "rect", "text", "path", "circle", "footer", "pre", "code", "script"}

    def __init__(self):
        super().__init__()
        self.names, self.scripts, self.text, self.title, self.in_title = set(), 0, [], "", False

    def handle_starttag(self, tag, attrs):
        self.names.add(tag)
        self.scripts += tag == "script"
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self.in_title:
            self.title += data


def hostile(dom_path, marker):
    page = Elements()
    page.feed(open(dom_path, encoding="utf-8").read())
    text = "".join(page.text)
    problems = []
    if page.names - Elements.RENDERER:
        problems.append(f"elements the renderer never writes: {sorted(page.names - Elements.RENDERER)}")
    if page.scripts != 1:
        problems.append(f"{page.scripts} scripts")
    if "pwned" in page.title:
        problems.append(f"the DUT's script ran: title {page.title!r}")
    if text.count(marker) < 3:
        problems.append(f"the DUT's text is not on the page as text ({text.count(marker)} times {marker})")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"hostile DUT: its markup is on the page {text.count(marker)} times, as text; {len(page.names)} kinds of element, all the renderer's")


def png_pixels(path):
    """(width, height, channels, rows of bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path} is not a PNG")
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit(f"{path}: PNG depth {depth} colour type {ctype} interlace {interlace}: not handled here")
        elif kind == b"IDAT":
            idat.append(body)
    bpp = 3 if ctype == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride): line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride): line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    if sys.argv[1] == "--hostile":
        return hostile(sys.argv[2], sys.argv[3])
    report_path, dom_path, png_path = sys.argv[1:4]
    report = json.load(open(report_path))
    results = [(d["dialect"], r["id"], r["verdict"]) for d in report["dialects"] for r in d["results"]]
    parser = Rows()
    parser.feed(open(dom_path, encoding="utf-8").read())
    rows = parser.rows
    problems = []
    if len(rows) != len(results):
        problems.append(f"{len(rows)} rows for {len(results)} checks")
    for row, (dialect, cid, verdict) in zip(rows, results):
        a = row["attrs"]
        if (a.get("data-dialect"), a.get("data-verdict")) != (dialect, verdict):
            problems.append(f"{dialect} {cid}: row says {a.get('data-dialect')} {a.get('data-verdict')}")
        if verdict == "FAIL" and (row["charts"] != 1 or "open" not in a):
            problems.append(f"{dialect} {cid}: FAIL with {row['charts']} charts, {'open' if 'open' in a else 'closed'}")
    fails = sum(1 for r in results if r[2] == "FAIL")
    if fails == 0:
        problems.append("the run has no FAIL: the check needs one")

    width, height, bpp, pixels = png_pixels(png_path)
    # Luminance spread over a grid of samples, and the FAIL red (#cf222e) on screen.
    samples, red = [], 0
    for y in range(0, height, 4):
        line = pixels[y]
        for x in range(0, width, 4):
            r, g, b = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
            samples.append(0.299 * r + 0.587 * g + 0.114 * b)
            red += abs(r - 0xCF) < 24 and abs(g - 0x22) < 24 and abs(b - 0x2E) < 24
    mean = sum(samples) / len(samples)
    deviation = (sum((s - mean) ** 2 for s in samples) / len(samples)) ** 0.5
    if deviation < 10:
        problems.append(f"the screenshot is blank: luminance {mean:.0f} +- {deviation:.1f}")
    if red < 50:
        problems.append(f"no FAIL red on the screenshot ({red} samples)")

    if problems:
        print("\n".join(problems))
        sys.exit(1)
    charts = sum(r["charts"] for r in rows)
    print(f"{len(rows)} rows, one per check; {fails} FAILs, each with its chart open; {charts} charts in all; "
          f"screenshot {width}x{height}, luminance {mean:.0f} +- {deviation:.1f}, {red} FAIL-red samples")


if __name__ == "__main__":
    main()
