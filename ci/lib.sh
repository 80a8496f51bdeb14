# Shared helpers for ci/ scripts.
step() { printf '\n== %s\n' "$*"; }

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
