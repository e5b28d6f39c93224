#!/bin/sh
# npm start: run Lestrade on its defaults. Installs npm dependencies and, when REDIS_URL is
# unset, redis-server (serve then runs its own, with its data in .data/redis).
set -eu
cd "$(dirname "$0")/.."
. scripts/ensure-deps.sh
ensure_npm_deps
[ -n "${REDIS_URL:-}" ] || ensure_debian_packages redis-server:redis-server
[ $# -gt 0 ] || set -- serve
exec node bin/lestrade.js "$@"
