#!/usr/bin/env python3
"""A DUT that attacks the report, not the mesh (ci/test, step "HTML report").

It speaks the stdio protocol of docs/stdio-dut.md just enough to run a check, and puts markup
everywhere a DUT can: its log lines, its stderr (which the tester quotes in the evidence),
the bytes it sends (which the tester decodes), a protocol error (which the tester quotes in
the FAIL's reason). The rendered page must show all of it as text and run none of it.
"""
import json
import sys

HOSTILE = ('HOSTILE-MARKER </text></g></svg></details><script>document.title="pwned"</script>'
           '"><img src=x onerror="document.title=\'pwned\'"><iframe srcdoc="<b>x</b>"></iframe>'
           "<!-- ]]> \u0000\u001b[31m")


def emit(**message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    m = json.loads(line)
    kind = m.get("type")
    if kind == "start":
        print(HOSTILE, file=sys.stderr, flush=True)
        emit(type="log", text=HOSTILE)
        emit(type="ready", version=1)
    elif kind == "link-up":
        emit(type="log", text="link " + str(m["link"]) + " " + HOSTILE)
    elif kind == "rx":
        emit(type="tx", link=m["link"], hex=HOSTILE.encode().hex())
        emit(type="log", text="rx " + HOSTILE)
        if len(m["hex"]) < 6:
            sys.stdout.write(HOSTILE + "\n")  # not JSON: the tester quotes it in the FAIL
            sys.stdout.flush()
    elif kind == "stop":
        break
