#!/usr/bin/env bash
# ci/bumble-node-dual.sh DIALECT legacy|extended
# Two plain `meshconform node`s (the apps' dual role: advertising, scanning, connecting out) on
# fresh Bumble controllers X and Y must find each other and make exactly one link between them
# (either direction). Then ci/bumble-peer.py (Bumble's host) links central A to X and central B
# to Y: A's message must reach B across X, the X-Y link and Y (two hops). Exits 0 when all holds.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
dialect=${1:?usage: ci/bumble-node-dual.sh DIALECT legacy|extended}; mode=${2:?legacy or extended}
bin=${MESHCONFORM:-.build/debug/meshconform}
out=.build/radio/dual-$dialect-$mode
rm -rf "$out"; mkdir -p "$out"
legacy=(); [ "$mode" = legacy ] && legacy=(--legacy all)
start_controllers 4 "${legacy[@]}" || exit 1
x=C0:D0:00:00:00:01; y=C0:D0:00:00:00:02
"$bin" node --dialect "$dialect" --adapter "${CONTROLLERS[0]}" --ble-address $x --seed 11 --duration 14 > "$out/x.log" 2>&1 &
CI_PIDS+=($!); nx=$!
"$bin" node --dialect "$dialect" --adapter "${CONTROLLERS[1]}" --ble-address $y --seed 12 --duration 14 > "$out/y.log" 2>&1 &
CI_PIDS+=($!); ny=$!
linked() { grep -q ' up (ATT_MTU' "$out/x.log" && grep -q ' up (ATT_MTU' "$out/y.log"; }
for _ in $(seq 200); do linked && break; sleep 0.05; done
linked || { echo "FAIL: the two nodes did not link to each other within 10 s"; tail -n 5 "$out/x.log" "$out/y.log"; exit 1; }
timeout 60 "$VENV/bin/python" ci/bumble-peer.py --dialect "$dialect" --a "${CONTROLLERS[2]}" --b "${CONTROLLERS[3]}" \
  --node-a $x --node-b $y --hops 2 > "$out/peer.log" 2>&1
rc=$?
wait $nx $ny
stop_controllers
# Each node, at exit, lists its links: the other node exactly once (one link per peer), beside its Bumble central.
for pair in "x $y" "y $x"; do
  set -- $pair
  n=$(grep '^links at exit:' "$out/$1.log" | grep -o "$2 [a-z]*" | wc -l)
  if [ "$n" -ne 1 ]; then
    echo "FAIL: node $1 holds $n links to the other node at exit, not 1: $(grep '^links at exit:' "$out/$1.log")"; rc=1
  fi
done
cat "$out/peer.log"
[ $rc -eq 0 ] || { for f in x y; do echo "--- node $f log ($out/$f.log)"; tail -30 "$out/$f.log"; done; }
[ $rc -eq 0 ] && echo "PASS: one link between the nodes, $(grep -h '^links at exit:' "$out/x.log")"
exit $rc
