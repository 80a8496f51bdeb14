#!/usr/bin/env bash
# ci/bumble-node-exchange.sh DIALECT legacy|extended [NODE ARGS...]
# Starts three fresh linked Bumble controllers, runs `meshconform node` on the first (with a
# btsnoop capture in .build/radio/DIALECT-MODE/), and has ci/bumble-peer.py (Bumble's own host,
# an independent stack) exchange a message with it through the other two. Exits with the
# peer's verdict; prints the node's log when it fails. Extra args go to the node (--mutant ...).
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
dialect=${1:?usage: ci/bumble-node-exchange.sh DIALECT legacy|extended [NODE ARGS...]}; mode=${2:?legacy or extended}; shift 2
bin=${MESHCONFORM:-.build/debug/meshconform}
out=.build/radio/$dialect-$mode${1:+-mutant}
rm -rf "$out"; mkdir -p "$out"
legacy=(); [ "$mode" = legacy ] && legacy=(--legacy all)
start_controllers 3 "${legacy[@]}" || exit 1
"$bin" node --dialect "$dialect" --adapter "${CONTROLLERS[0]}" --duration 60 --btsnoop "$out" "$@" > "$out/node.log" 2>&1 &
node=$!; CI_PIDS+=($node)
wait_started "$out/node.log" $node || { echo "meshconform node did not start:"; cat "$out/node.log"; exit 1; }
timeout 90 "$VENV/bin/python" ci/bumble-peer.py --dialect "$dialect" --a "${CONTROLLERS[1]}" --b "${CONTROLLERS[2]}" > "$out/peer.log" 2>&1
rc=$?
kill $node 2>/dev/null; wait $node 2>/dev/null
stop_controllers
cat "$out/peer.log"
[ $rc -eq 0 ] || { echo "--- node log ($out/node.log)"; tail -30 "$out/node.log"; }
exit $rc
