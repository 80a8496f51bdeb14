#!/usr/bin/env bash
# ci/bumble-dut-conformance.sh DIALECT [--bug NAME] [DUT ARGS...] [-- RUN ARGS...]
# The over-the-air catalog against a device we did not write: three fresh linked Bumble
# controllers, the independent example DUT (examples/bumble-dut/dut.py: dual role, announces,
# keeps its state and its own identity for the whole run) on the third, and
# `meshconform run --adapter A --adapter B --target DUT` on the other two. Then it judges the
# report:
#   - conforming DUT: no check FAILs;
#   - with --bug NAME: exactly the checks that bug breaks (EXPECTED below) FAIL, no other.
# Files: .build/radio/dut-DIALECT[-BUG]/ (dut.log, run.log, report.json, btsnoop captures).
# Exit 0 when the verdicts are the expected ones, 1 when not, 2 when the run could not be made.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
usage="usage: ci/bumble-dut-conformance.sh bitchat|blemesh [--bug NAME] [DUT ARGS...] [-- RUN ARGS...]"
dialect=${1:?$usage}; shift
case $dialect in bitchat|blemesh) ;; *) echo "$usage"; exit 2 ;; esac
bug=""; dut_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  if [ "$1" = --bug ]; then bug=${2:?--bug needs a name}; dut_args+=(--bug "$bug"); shift 2; else dut_args+=("$1"); shift; fi
done
[ $# -gt 0 ] && shift

# The checks each planted bug breaks with two tester adapters, three identities each (the 3- to
# 6-link checks run too; docs: examples/bumble-dut/README.md).
declare -A EXPECTED=(
  [bitchat:no-dedup]="DDP/BV-01 DDP/BV-02 DDP/BV-06 DDP/BV-12 DDP/BV-14"
  [bitchat:relay-to-sender]="RLY/BV-01 RLY/BV-03 RLY/BV-24 FRG/BV-05"
  [blemesh:no-dedup]="DDP/BV-01 DDP/BV-02 DDP/BV-06 DDP/BV-11"
  [blemesh:relay-to-sender]="RLY/BV-01 RLY/BV-03 RLY/BV-11 RLY/BV-13 RLY/BV-21"
  [blemesh:no-reack]="ACK/BV-02 FRG/BV-03"
)

if [ -n "$bug" ] && [ -z "${EXPECTED[$dialect:$bug]:-}" ]; then
  echo "--bug $bug: no expected failures recorded for $dialect here (known: ${!EXPECTED[*]})"; exit 2
fi

bin=${MESHCONFORM:-.build/debug/meshconform}
out=.build/radio/dut-$dialect${bug:+-$bug}
rm -rf "$out"; mkdir -p "$out"
target=C0:DD:00:00:00:01
start_controllers 3 || exit 2
"$VENV/bin/python" examples/bumble-dut/dut.py --dialect "$dialect" --adapter "${CONTROLLERS[2]}" --address $target \
  --seed 7 --verbose "${dut_args[@]}" > "$out/dut.log" 2>&1 &
dut=$!; CI_PIDS+=($dut)
wait_started "$out/dut.log" $dut 300 || { echo "the example DUT did not start:"; cat "$out/dut.log"; exit 2; }
# A 60 s budget: DDP/BV-06 (1024 envelopes, then the first again) takes 15-35 s on the air, more
# with a DUT that relays every copy; the retention and reassembly-lifetime checks stay INCONC.
# timingSlackMs 150: what the driver gives a device on the air when there is no file.
echo "{\"dialect\": \"$dialect\", \"checkBudgetSeconds\": 60, \"timingSlackMs\": 150}" > "$out/capabilities.json"
timeout 600 "$bin" run --dialect "$dialect" --adapter "${CONTROLLERS[0]}" --adapter "${CONTROLLERS[1]}" --target $target \
  --capabilities "$out/capabilities.json" --btsnoop "$out" --json "$out/report.json" "$@" > "$out/run.log" 2>&1
rc=$?
kill $dut 2>/dev/null; wait $dut 2>/dev/null
stop_controllers
if [ $rc -ge 2 ] || [ ! -s "$out/report.json" ]; then
  cat "$out/run.log"; echo "--- DUT log ($out/dut.log)"; tail -20 "$out/dut.log"; exit 2
fi
"$VENV/bin/python" ci/failed-checks.py "$out/report.json" --exactly "${EXPECTED[$dialect:$bug]:-}" || { echo "(run log: $out/run.log, DUT log: $out/dut.log)"; exit 1; }
