#!/usr/bin/env bash
# ci/bumble-conformance.sh DIALECT legacy|extended [NODE ARGS...] [-- RUN ARGS...]
# The conformance run over the air: three fresh linked Bumble controllers, the plain reference
# node `meshconform node --dialect DIALECT` (dual role, its own identity, never restarted; plus
# NODE ARGS, e.g. --mutant X or --conformance-dut) on the third, and `meshconform run --adapter A
# --adapter B --target NODE` (plus RUN ARGS) on the other two, with a JSON report and btsnoop
# captures in .build/radio/conformance-DIALECT-MODE[-mutant]/. Exits with the run's status;
# prints the node's log tail when the run could not be made (exit 2).
# TESTERS=N (default 2) runs the tester on N adapters (N + 1 controllers): TESTERS=1 is one
# adapter playing several tester identities (docs/radio.md, "Several identities per adapter");
# the output folder then ends in -Na.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
dialect=${1:?usage: ci/bumble-conformance.sh DIALECT legacy|extended [NODE ARGS...] [-- RUN ARGS...]}; mode=${2:?legacy or extended}; shift 2
node_args=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do node_args+=("$1"); shift; done; [ $# -gt 0 ] && shift
bin=${MESHCONFORM:-.build/debug/meshconform}
tag=; for a in "${node_args[@]}"; do [ "$a" = --mutant ] && tag=-mutant; done
testers=${TESTERS:-2}
out=.build/radio/conformance-$dialect-$mode$tag; [ "$testers" = 2 ] || out=$out-${testers}a
rm -rf "$out"; mkdir -p "$out"
legacy=(); [ "$mode" = legacy ] && legacy=(--legacy all)
target=C0:4D:45:53:48:01
start_controllers $((testers + 1)) "${legacy[@]}" || exit 1
run_adapters=(); for i in $(seq 0 $((testers - 1))); do run_adapters+=(--adapter "${CONTROLLERS[$i]}"); done
"$bin" node --dialect "$dialect" --adapter "${CONTROLLERS[$testers]}" --ble-address $target "${node_args[@]}" > "$out/node.log" 2>&1 &
node=$!; CI_PIDS+=($node)
wait_started "$out/node.log" $node || { echo "meshconform node did not start:"; cat "$out/node.log"; exit 2; }
timeout 300 "$bin" run --dialect "$dialect" "${run_adapters[@]}" --target $target \
  --btsnoop "$out" --json "$out/report.json" "$@" > "$out/run.log" 2>&1
rc=$?
kill $node 2>/dev/null; wait $node 2>/dev/null
stop_controllers
[ $rc -eq 2 ] && { cat "$out/run.log"; echo "--- node log ($out/node.log)"; tail -20 "$out/node.log"; }
exit $rc
