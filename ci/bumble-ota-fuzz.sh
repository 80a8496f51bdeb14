#!/usr/bin/env bash
# ci/bumble-ota-fuzz.sh DIALECT [NODE ARGS...] [-- FUZZ ARGS...]
# Over-the-air fuzzing on the virtual radio: three fresh linked Bumble controllers, `meshconform
# node --conformance-dut` (plus NODE ARGS, e.g. --mutant crash-on-truncated --fresh-when-idle) on
# the third, and `meshconform fuzz --dialect DIALECT --adapter A --adapter B --target NODE` on the
# other two, findings and btsnoop captures in .build/radio/ota-DIALECT/. Exits with fuzz's status
# (0 nothing found, 1 found, 2 could not fuzz); prints both logs. ci/test runs it once (docs/fuzzing.md).
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
dialect=${1:?usage: ci/bumble-ota-fuzz.sh DIALECT [NODE ARGS...] [-- FUZZ ARGS...]}; shift
node_args=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do node_args+=("$1"); shift; done; [ $# -gt 0 ] && shift
bin=${MESHCONFORM:-.build/debug/meshconform}
out=.build/radio/ota-$dialect
rm -rf "$out"; mkdir -p "$out"
target=C0:4D:45:53:48:01
start_controllers 3 || exit 2
"$bin" node --dialect "$dialect" --adapter "${CONTROLLERS[2]}" --ble-address $target --conformance-dut "${node_args[@]}" > "$out/node.log" 2>&1 &
node=$!; CI_PIDS+=($node)
wait_started "$out/node.log" $node || { echo "meshconform node did not start:"; cat "$out/node.log"; exit 2; }
timeout 600 "$bin" fuzz --dialect "$dialect" --adapter "${CONTROLLERS[0]}" --adapter "${CONTROLLERS[1]}" --target $target \
  --btsnoop "$out" --findings "$out/findings" --json "$out/summary.json" "$@" > "$out/fuzz.log" 2>&1
rc=$?
kill $node 2>/dev/null; wait $node 2>/dev/null
stop_controllers
cat "$out/fuzz.log"; echo "--- node log ($out/node.log), last lines"; tail -5 "$out/node.log"
exit $rc
