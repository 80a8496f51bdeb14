"""Reads a meshconform JSON report and checks which checks FAILed.

--only-group G: at least one check failed, and every FAIL or ERROR is in group G
(used to show that a DUT with one planted bug fails exactly the checks about it).
--exactly "ID ID ...": the checks that FAIL or ERROR are exactly these (none when empty)."""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("report")
mode = parser.add_mutually_exclusive_group(required=True)
mode.add_argument("--only-group")
mode.add_argument("--exactly", metavar="IDS")
args = parser.parse_args()

with open(args.report) as f:
    report = json.load(f)
results = [r for d in report["dialects"] for r in d["results"]]
failed = [r["id"] for r in results if r["verdict"] in ("FAIL", "ERROR")]
counts = {v: sum(1 for r in results if r["verdict"] == v) for v in ("PASS", "FAIL", "INCONC", "NA", "ERROR")}
print(", ".join(f"{v} {n}" for v, n in counts.items()) + "; failed: " + (", ".join(failed) or "none"))
if args.only_group is not None:
    outside = [i for i in failed if not i.startswith(args.only_group + "/")]
    if not failed or outside:
        print(f"expected failures in {args.only_group} only; outside it: {', '.join(outside) or 'none'}")
        sys.exit(1)
    sys.exit(0)
expected = set(args.exactly.split())
unexpected = [i for i in failed if i not in expected]
missing = sorted(expected - set(failed))
if unexpected or missing:
    if unexpected:
        print("FAILed but should not: " + ", ".join(unexpected))
    if missing:
        print("should FAIL but did not: " + ", ".join(missing))
    sys.exit(1)
