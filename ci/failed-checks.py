"""Reads a meshconform JSON report and checks which checks FAILed.

--only-group G: at least one check failed, and every FAIL or ERROR is in group G
(used to show that a DUT with one planted bug fails exactly the checks about it)."""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("report")
parser.add_argument("--only-group", required=True)
args = parser.parse_args()

with open(args.report) as f:
    report = json.load(f)
results = [r for d in report["dialects"] for r in d["results"]]
failed = [r["id"] for r in results if r["verdict"] in ("FAIL", "ERROR")]
outside = [i for i in failed if not i.startswith(args.only_group + "/")]
print("failed: " + (", ".join(failed) or "none"))
if not failed or outside:
    print(f"expected failures in {args.only_group} only; outside it: {', '.join(outside) or 'none'}")
    sys.exit(1)
