# Shared helpers for ci/ scripts.
# Each step header carries the time since the script started, so a log shows where the time went.
CI_T0=${CI_T0:-$SECONDS}
step() { local t=$((SECONDS - CI_T0)); printf '\n== [%d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"; }

VENV="${MESHCONFORM_VENV:-$PWD/.venv}"

# Creates $VENV (installing python3-venv with apt when the system Python lacks it) and
# installs the given PyPI packages into it.
ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
      rm -rf "$VENV"
      apt_install python3-venv
      python3 -m venv "$VENV"
    fi
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# chromium_headless ARGS... URL: Debian's chromium without a display, a profile of its own and a
# time limit; its own chatter (D-Bus, GPU) goes to .build/chromium.log, shown when it fails.
chromium_headless() {
  local profile; profile=$(mktemp -d)
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --virtual-time-budget=5000 "$@" 2>.build/chromium.log || { cat .build/chromium.log; rm -rf "$profile"; echo "chromium failed: $*"; return 1; }
  rm -rf "$profile"
}

# Background processes started by these helpers; killed when the script exits.
CI_PIDS=()
ci_cleanup() { local p; for p in "${CI_PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; true; }
trap ci_cleanup EXIT

# start_controllers N [--legacy all|I,J]: starts N linked Bumble controllers (ci/bumble-controllers.py),
# waits up to 30 s for its READY line and puts the adapter monikers in the CONTROLLERS array.
# A fresh set per test: Bumble's controllers keep connections across an HCI reset.
start_controllers() {
  local log; log=$(mktemp)
  "$VENV/bin/python" ci/bumble-controllers.py -n "$@" > "$log" 2>&1 &
  CI_PIDS+=($!)
  CONTROLLERS_PID=$!
  local waited=0
  until grep -q '^READY' "$log"; do
    if ! kill -0 "$CONTROLLERS_PID" 2>/dev/null || [ $waited -ge 300 ]; then
      echo "bumble-controllers.py did not get ready:"; cat "$log"; return 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  read -r -a CONTROLLERS <<< "$(grep '^READY' "$log" | cut -d' ' -f2-)"
}

# stop_controllers: ends the set start_controllers started last.
stop_controllers() { kill "$CONTROLLERS_PID" 2>/dev/null; wait "$CONTROLLERS_PID" 2>/dev/null; true; }

# wait_started LOG PID [TENTHS]: waits up to TENTHS x 0.1 s (default 100) for the start line
# ("node ...") that meshconform node and the example DUT print once on the air, or for PID to
# exit; true when the line is there.
wait_started() {
  local _
  for _ in $(seq "${3:-100}"); do
    grep -q '^node ' "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^node ' "$1" 2>/dev/null
}
