#!/usr/bin/env bash
# Checks the CLI contract of DESIGN.md section 5 on the built binary: outputs and exit codes.
set -uo pipefail
bin=${1:?usage: ci/cli-contract.sh PATH/TO/meshconform}
fails=0 passes=0

expect() { # expect EXIT_CODE STDOUT_SUBSTRING -- command args...
  local want=$1 text=$2; shift 3
  local out code
  out=$("$@" 2>&1); code=$?
  if [ "$code" -ne "$want" ] || [[ "$out" != *"$text"* ]]; then
    echo "FAIL: $* -> exit $code (want $want), output: ${out:0:300}"; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}

expect 0 '"seq": "42"'        -- "$bin" decode relay.packet 610008000000000000002a
expect 0 '"type": "ack"'      -- "$bin" decode relay.packet '61 00 08 00 00 00 00 00 00 00 2A'
expect 1 'truncated'          -- "$bin" decode relay.packet 4600
expect 1 'unknownType'        -- "$bin" decode relay.packet 580000
expect 1 'lengthMismatch'     -- "$bin" decode relay.ack 00
expect 0 '000000000000002a'   -- "$bin" encode relay.ack '{"seq":"42"}'
expect 1 'valueOutOfRange'    -- "$bin" encode relay.ack '{"seq":"18446744073709551616"}'
expect 2 'unknown format'     -- "$bin" decode relay.nope 00
expect 2 'must be hex'        -- "$bin" decode relay.packet xyz
expect 2 'not JSON'           -- "$bin" encode relay.ack '{'
expect 2 'no vector folder'   -- "$bin" vectors --dir /nonexistent
expect 2 'no vector file'     -- "$bin" vectors --format relay.nope
expect 0 'bitchat.fragment'   -- "$bin" vectors --dialect bitchat
expect 2 'known: relay'       -- "$bin" vectors --dialect zigbee
expect 2 'Usage'              -- "$bin" decode
expect 2 'Unknown option'     -- "$bin" vectors --bogus
expect 0 'OVERVIEW'           -- "$bin" --help
expect 0 '"hop": 0'           -- sh -c "'$bin' encode relay.beacon '{\"origin\":\"AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE\",\"seqNo\":1,\"ttl\":8,\"hop\":0}' | '$bin' decode relay.beacon -"

# run: the conformance runner (exit 0 all passed, 1 a check failed, 2 bad use)
caps=$(mktemp); bad=$(mktemp)
echo '{"dialect":"relay","upperTester":false}' > "$caps"; echo '{"dialect":"zigbee"}' > "$bad"
expect 0 'all applicable checks passed' -- "$bin" run --dialect relay --checks 'RLY/*'
expect 0 'all applicable checks passed' -- "$bin" --dialect relay --checks 'DDP/BV-01'
expect 1 'FAIL   DDP/BV-01'     -- "$bin" --dialect relay --mutant no-dedup --checks 'DDP/BV-01'
expect 0 'NA'                  -- "$bin" --capabilities "$caps" --checks 'DDP/*'
expect 2 'unknown mutant'      -- "$bin" --mutant nope
expect 0 'run base 77;'        -- "$bin" --dialect bitchat --persistent --mutant chatty --run-base 77
expect 2 'drop --persistent'   -- "$bin" --dialect relay --persistent --dut-exec true
expect 0 'all applicable checks passed' -- "$bin" --dialect bitchat --checks 'FRG/BV-05' --dut-exec "'$bin' stdio-dut --mutant chatty"
expect 2 'unknown dialect'     -- "$bin" --dialect zigbee
expect 2 'unknown dialect'     -- "$bin" --capabilities "$bad"
expect 2 'cannot read'         -- "$bin" --capabilities /nonexistent.json
expect 2 'no relay check'      -- "$bin" --dialect relay --checks 'XYZ/*'
expect 2 'needs the DUT'       -- "$bin" --dut-exec true
expect 2 'could not be run'    -- "$bin" --dialect relay --dut-exec /nonexistent/dut
expect 2 'not executable'      -- "$bin" --dialect relay --dut-exec /
expect 2 'hci'                 -- "$bin" --dialect relay --adapter hci9 --target AA:BB:CC:DD:EE:FF   # no Bluetooth here, or no hci9
expect 2 'cannot connect'      -- "$bin" --dialect relay --adapter tcp:127.0.0.1:1
expect 2 'cannot connect'      -- "$bin" --adapter tcp:127.0.0.1:1   # no --dialect: detected on the air, after the adapter opens
expect 2 'go with --adapter'   -- "$bin" --dialect relay --target AA:BB:CC:DD:EE:FF
expect 2 'given twice'         -- "$bin" --dialect relay --adapter tcp:127.0.0.1:1 --adapter tcp:127.0.0.1:1
expect 2 '--target must be'    -- "$bin" --dialect relay --adapter tcp:127.0.0.1:1 --target nope
expect 2 'cannot be combined'  -- "$bin" --dialect relay --adapter tcp:127.0.0.1:1 --mutant no-dedup
expect 2 'KEY=VALUE'           -- "$bin" node --dialect relay --adapter tcp:127.0.0.1:1 --setting nope
expect 0 'RLY/BV-01'           -- "$bin" list --dialect relay

# operator prompts (issue 13): scripted answers decide a check that needs the app
answers=$(mktemp); trap 'rm -f "$answers"' EXIT
echo '{"check": "DDP/BV-05", "kind": "delivery", "answer": "y"}' > "$answers"
expect 0 'PASS   DDP/BV-05'    -- "$bin" run --dialect blemesh --checks DDP/BV-05 --prompt-answers "$answers"
echo '{"check": "DDP/BV-05", "kind": "delivery", "answer": "n"}' > "$answers"
expect 1 'never delivered'     -- "$bin" run --dialect blemesh --checks DDP/BV-05 --prompt-answers "$answers"
echo '{"check": "DDP/BV-05", "answer": "none"}' > "$answers"
expect 0 'INCONC DDP/BV-05'    -- "$bin" run --dialect relay --checks DDP/BV-05 --prompt-answers "$answers"
expect 0 'standard input is closed' -- "$bin" run --dialect relay --checks DDP/BV-05 --prompt --prompt-timeout 2 < /dev/null
expect 2 '--prompt-answers'    -- "$bin" run --dialect relay --prompt-answers /nonexistent
echo 'not json' > "$answers"
expect 2 'line 1'              -- "$bin" run --dialect relay --prompt-answers "$answers"

# adapters and adapter monikers (issue 5): listing works with or without kernel Bluetooth
expect 0 'hci'                 -- "$bin" adapters
expect 2 'bad adapter'         -- "$bin" --adapter tcp:127.0.0.1 --target AA:BB:CC:DD:EE:FF
expect 2 'bad adapter'         -- "$bin" --adapter usb0
expect 2 'needs a radio'       -- "$bin" node --dialect relay --adapter virtual
expect 2 'hci'                 -- "$bin" node --dialect relay --adapter hci9   # no Bluetooth here, or no hci9: either says so
expect 2 'cannot connect'      -- "$bin" node --dialect relay --adapter tcp:127.0.0.1:1
expect 2 'unknown dialect'     -- "$bin" node --dialect zigbee --adapter tcp:127.0.0.1:1
expect 2 'unknown mutant'      -- "$bin" node --dialect relay --adapter tcp:127.0.0.1:1 --mutant nope
expect 2 'random static'       -- "$bin" node --dialect relay --adapter tcp:127.0.0.1:1 --ble-address 00:11:22:33:44:55
expect 0 '"payload": "62697463686174"' -- "$bin" decode bitchat.packet 0101070000018bcfe56800000007010203040506070862697463686174
expect 1 'unknownType'         -- "$bin" decode bitchat.packet 0301070000018bcfe56800000007010203040506070862697463686174
expect 1 'chunkIndexOutOfRange' -- "$bin" decode bitchat.fragment f00df00d000000010003000302
expect 1 'ttlOutOfRange'       -- "$bin" encode simple.message '{"id":"a","sender":"A","content":"","timestamp":0,"ttl":256,"relayCount":0,"isRelayed":false,"originalSender":"A"}'
expect 0 'bitchat dialect'     -- "$bin" sim --dialect bitchat --topology ring --nodes 6 --messages 2 --settle 1
expect 0 'simple dialect'      -- "$bin" sim --dialect simple --topology ring --nodes 6 --messages 2 --settle 1
expect 0 'all applicable checks passed' -- "$bin" run --dialect bitchat --checks 'RLY/*'
expect 0 'all applicable checks passed' -- "$bin" run --dialect simple --checks 'DDP/*'
expect 1 'FAIL   RLY/BV-17'   -- "$bin" run --dialect bitchat --mutant no-ttl-cap --checks 'RLY/BV-17'
# DDP/BV-14 decides on the page's minimum capacity with no capabilities file (Robot Heart's arbitrary eviction)
expect 1 'FAIL   DDP/BV-14'   -- "$bin" --dialect camp --dut-exec "'$bin' stdio-dut --mutant evict-arbitrary" --checks 'DDP/BV-14'
expect 0 'PASS   DDP/BV-14'   -- "$bin" --dialect camp --dut-exec "'$bin' stdio-dut" --checks 'DDP/BV-14'
# slack widens only the late side: a relay at once FAILs the jitter check whatever timingSlackMs
# (blemesh: its window starts above 0; bitchat's 0-220 ms takes a relay at once, Android's policy)
slack=$(mktemp); echo '{"dialect": "blemesh", "timingSlackMs": 500}' > "$slack"
expect 1 'earlier than the page' -- "$bin" --dialect blemesh --dut-exec "'$bin' stdio-dut --mutant no-jitter" --capabilities "$slack" --checks 'RLY/BV-02'
# fuzz --dialect: over-the-air fuzzing (exit 0 nothing found, 1 found, 2 bad use or a DUT that cannot be fuzzed)
ota=$(mktemp -d)
expect 1 'silent after [truncated]' -- "$bin" fuzz --dialect relay --mutant crash-on-truncated --runs 2000 --stop-on-finding --findings "$ota"
expect 0 '2000 inputs, 0 finding(s)' -- "$bin" fuzz --dialect relay --runs 2000 --findings "$ota"
expect 2 'not both'            -- "$bin" fuzz relay.packet --dialect relay --findings "$ota"
expect 2 'unknown dialect'     -- "$bin" fuzz --dialect zigbee --findings "$ota"
expect 2 'name its dialect'    -- "$bin" fuzz --dut-exec cat --findings "$ota"
expect 2 'could not be fuzzed' -- "$bin" fuzz --dialect relay --dut-exec 'exit 0' --findings "$ota"
rm -rf "$ota"
rm -f "$caps" "$bad"

echo "cli-contract: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
