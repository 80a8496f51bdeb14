#!/usr/bin/env bash
# ci/bumble-unreachable.sh: a DUT that becomes unreachable. `meshconform node --dialect bitchat`
# starts on a Bumble controller and its host is killed at once: the controller goes on
# advertising and accepting link-layer connections, but nothing answers ATT (a crashed app on a
# phone looks the same). `meshconform run` against it must give INCONC, never FAIL: found by the
# link measurement before the first check (or by the first two checks' bounded link set-up
# attempts), every check INCONC at once, one
# "DUT unreachable:" line at the end, exit 1, within a minute. Output in .build/radio/unreachable/.
# Then a DUT that dies in the middle of a check (.build/radio/unreachable-mid-check/): a would-be
# FAIL is INCONC "the DUT became unreachable during the check", and counts towards the two in a
# row; and (.build/radio/unreachable-mid-check-pass/) a would-be PASS is INCONC too.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
bin=${MESHCONFORM:-.build/debug/meshconform}
out=.build/radio/unreachable
rm -rf "$out"; mkdir -p "$out"
target=C0:4D:45:53:48:01
start_controllers 3 || exit 1
"$bin" node --dialect bitchat --adapter "${CONTROLLERS[2]}" --ble-address $target > "$out/node.log" 2>&1 &
node=$!; CI_PIDS+=($node)
wait_started "$out/node.log" $node || { echo "meshconform node did not start:"; cat "$out/node.log"; exit 1; }
sleep 0.5; kill $node; wait $node 2>/dev/null
start=$(date +%s)
rc=0
timeout 120 "$bin" run --dialect bitchat --adapter "${CONTROLLERS[0]}" --adapter "${CONTROLLERS[1]}" --target $target \
  --json "$out/report.json" > "$out/run.log" 2>&1 || rc=$?
took=$(( $(date +%s) - start ))
stop_controllers
fail() { cat "$out/run.log"; echo "unreachable DUT: $*"; exit 1; }
[ $rc -eq 1 ] || fail "exit $rc, not 1"
[ $took -le 60 ] || fail "took $took s, more than a minute"
tail -1 "$out/run.log" | grep -q '^DUT unreachable ' || fail "the last line does not say the DUT is unreachable"
"$VENV/bin/python" - "$out/report.json" <<'PY' || fail "verdicts"
import json, sys
results = [x for d in json.load(open(sys.argv[1]))["dialects"] for x in d["results"]]
bad = [(x["id"], x["verdict"]) for x in results if x["verdict"] not in ("INCONC", "NA")]
tried = [x for x in results if x["verdict"] == "INCONC" and "could not bring L1 up" in (x.get("reason") or "")]
skipped = [x for x in results if x["verdict"] == "INCONC" and (x.get("reason") or "").startswith("not run: the DUT became unreachable")]
# Either the link measurement before the checks finds that nothing answers (no check tried), or
# the first two checks find it with their link set-up attempts.
if bad or len(tried) not in (0, 2) or len(skipped) < 5:
    print("verdicts:", bad, "tried", len(tried), "not run", len(skipped)); sys.exit(1)
print(f"{len(tried)} checks tried their links, {len(skipped)} not run")
PY
echo "exit 1 in $took s: $(tail -1 "$out/run.log" | cut -c1-120)"

# A DUT that dies in the middle of a check. DDP/BV-05 has sent its message three times and asks
# the operator how often the device shows it; meanwhile the node's host is killed (its controller
# keeps the links, nothing answers ATT), then the operator answers. The liveness probe before the
# verdict finds no answer: INCONC with the reason, whichever way the answer went.
# mid_check ANSWER CHECKS: ANSWER n (not shown) would FAIL the check, y (shown once) would PASS it
# (a check resting on what did not happen: no second delivery). Output in $out.
mid_check() {
  local answer=$1 checks=$2
  rm -rf "$out"; mkdir -p "$out"
  start=$(date +%s)
  start_controllers 3 || exit 1
  "$bin" node --dialect blemesh --adapter "${CONTROLLERS[2]}" --ble-address $target > "$out/node.log" 2>&1 &
  node=$!; CI_PIDS+=($node)
  wait_started "$out/node.log" $node || { echo "meshconform node did not start:"; cat "$out/node.log"; exit 1; }
  mkfifo "$out/operator"
  timeout 180 "$bin" run --dialect blemesh --adapter "${CONTROLLERS[0]}" --adapter "${CONTROLLERS[1]}" --target $target \
    --prompt --checks "$checks" --json "$out/report.json" < "$out/operator" > "$out/run.log" 2>&1 &
  run=$!; CI_PIDS+=($run)
  exec 3>"$out/operator"   # the operator's terminal, open while the run lives
  local waited=0
  until grep -q '^\[operator\] DDP/BV-05' "$out/run.log"; do
    kill -0 $run 2>/dev/null && [ $waited -lt 1200 ] || { exec 3>&-; fail "DDP/BV-05 did not ask the operator"; }
    sleep 0.1; waited=$((waited + 1))
  done
  kill $node; wait $node 2>/dev/null
  echo "$answer" >&3
  rc=0; wait $run || rc=$?
  exec 3>&-
  took=$(( $(date +%s) - start ))
  stop_controllers
  "$VENV/bin/python" - "$out/report.json" "$answer" <<'PY' || fail "mid-check ($answer) verdicts"
import json, sys
results = {x["id"]: x for d in json.load(open(sys.argv[1]))["dialects"] for x in d["results"]}
first = results["DDP/BV-05"]
would = {"n": "it would have FAILed", "y": "it would have PASSed"}[sys.argv[2]]
bad = [(i, x["verdict"]) for i, x in results.items() if x["verdict"] not in ("INCONC", "NA")]
noted = any(would in (e.get("summary") or "") for e in first.get("evidence", []))
if bad or not (first.get("reason") or "").startswith("the DUT became unreachable during the check: ") or not noted:
    print("verdicts:", bad, "DDP/BV-05:", first["verdict"], first.get("reason"), "noted:", noted); sys.exit(1)
print(f"DDP/BV-05 INCONC ({would}):", first["reason"][:100])
PY
}

# Would-be FAIL; the next check's links cannot be brought up, and the run ends unreachable (exit 1).
out=.build/radio/unreachable-mid-check
mid_check n "DDP/BV-05,RTE/*"
[ $rc -eq 1 ] || fail "mid-check: exit $rc, not 1"
tail -1 "$out/run.log" | grep -q '^DUT unreachable ' || fail "mid-check: the last line does not say the DUT is unreachable"
echo "mid-check: exit 1 in $took s: $(tail -1 "$out/run.log" | cut -c1-120)"

# Would-be PASS: a DUT that is gone shows no second delivery either, which says nothing.
out=.build/radio/unreachable-mid-check-pass
mid_check y "DDP/BV-05"
[ $rc -eq 0 ] || fail "mid-check PASS: exit $rc, not 0 (one INCONC, no FAIL)"
echo "mid-check PASS: INCONC, exit 0 in $took s"
