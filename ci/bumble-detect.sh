#!/usr/bin/env bash
# ci/bumble-detect.sh: dialect detection over the air (`meshconform --adapter A` without
# --dialect), on fresh Bumble controllers: a plain relay node and a plain blemesh node that
# advertise their services, and a Bumble peripheral serving the bitchat service that
# advertises only its name (the tester must look in its GATT database).
#  1. no --target: the listing names each node's dialect and counts the quiet device; exit 2.
#  2. --target RELAY-NODE: "dialect relay: it advertises the service ..." and the run goes on.
#  3. --target QUIET: "dialect bitchat: its GATT database holds the primary service ...".
#  4. --target of a device not there: exit 2 naming the address.
set -uo pipefail
cd "$(dirname "$0")/.."
. ci/lib.sh
bin=${MESHCONFORM:-.build/debug/meshconform}
out=.build/radio/detect
rm -rf "$out"; mkdir -p "$out"
start_controllers 4 || exit 1
relay=C0:DE:7E:C7:00:01; blemesh=C0:DE:7E:C7:00:02; quiet=C0:DE:7E:C7:00:03
"$bin" node --dialect relay --adapter "${CONTROLLERS[0]}" --ble-address $relay --conformance-dut --no-central --duration 60 > "$out/relay.log" 2>&1 &
CI_PIDS+=($!)
"$bin" node --dialect blemesh --adapter "${CONTROLLERS[1]}" --ble-address $blemesh --no-central --duration 60 > "$out/blemesh.log" 2>&1 &
CI_PIDS+=($!)
"$VENV/bin/python" ci/bumble-quiet-peripheral.py --controller "${CONTROLLERS[2]}" --address $quiet \
  --service F47B5E2D-4A9E-4C5A-9B3F-8E1D2C3A4B5C --characteristic A1B2C3D4-E5F6-4A5B-8C9D-0E1F2A3B4C5D > "$out/quiet.log" 2>&1 &
CI_PIDS+=($!)
for _ in $(seq 200); do grep -q '^node ' "$out/relay.log" && grep -q '^node ' "$out/blemesh.log" && grep -q READY "$out/quiet.log" && break; sleep 0.05; done
fails=0
expect() { # expect EXIT TEXT... -- ARGS: runs meshconform with the tester adapter, checks exit and every TEXT
  local want=$1; shift; local texts=(); while [ "$1" != "--" ]; do texts+=("$1"); shift; done; shift
  local log; log="$out/run-$((++runs)).log"
  timeout 120 "$bin" --adapter "${CONTROLLERS[3]}" "$@" > "$log" 2>&1; local code=$?
  local t ok=1; for t in "${texts[@]}"; do grep -qF -- "$t" "$log" || ok=0; done
  if [ $code -ne "$want" ] || [ $ok -eq 0 ]; then
    echo "FAIL: meshconform --adapter T $* -> exit $code (want $want), wanted: ${texts[*]}"; cat "$log"; fails=$((fails + 1))
  else
    echo "ok: $* -> exit $code"
  fi
}
runs=0
expect 2 "$relay  random" "relay" "$blemesh  random" "blemesh" "1 other device" "pass --target ADDR" --
expect 0 "dialect relay: it advertises the service 4D455348-5245-4C41-5900-000000000001" -- --target $relay --checks 'RLY/BV-03'
expect 2 "dialect bitchat: its GATT database holds the primary service F47B5E2D-4A9E-4C5A-9B3F-8E1D2C3A4B5C" "no bitchat check matches" -- --target $quiet --checks 'NONE/BV-99'
expect 2 "no connectable advertisement from C0:DE:7E:C7:00:09" -- --target C0:DE:7E:C7:00:09
stop_controllers
[ $fails -eq 0 ] && echo "PASS: dialects detected from advertisements and from a GATT database"
exit $((fails > 0))
