# Sourced by start.sh and test.sh: installs what is missing, or says exactly how to.

# npm dependencies: install when node_modules is missing or older than the lock file.
ensure_npm_deps() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "lestrade: installing npm dependencies (npm ci)" >&2
    npm ci --no-audit --no-fund
  fi
}

# ensure_debian_packages PKG:BINARY ... — installs missing packages with apt-get when root on
# Debian/Ubuntu; elsewhere stops with the exact command to run.
ensure_debian_packages() {
  missing_pkgs=""
  for pair in "$@"; do
    pkg=${pair%%:*}
    bin=${pair#*:}
    command -v "$bin" >/dev/null 2>&1 || missing_pkgs="$missing_pkgs $pkg"
  done
  [ -z "$missing_pkgs" ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "lestrade: installing Debian packages:$missing_pkgs" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing_pkgs >&2
    return 0
  fi
  echo "lestrade: missing:$missing_pkgs. Install them first, e.g.:" >&2
  if command -v apt-get >/dev/null 2>&1; then
    echo "  sudo apt-get update && sudo apt-get install -y$missing_pkgs" >&2
  else
    echo "  (Debian/Ubuntu) sudo apt-get install -y$missing_pkgs   (macOS) brew install redis prometheus alertmanager" >&2
  fi
  exit 1
}
