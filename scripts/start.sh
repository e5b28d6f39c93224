#!/bin/sh
# npm start: run Lestrade on its defaults. Installs npm dependencies, compiles to dist/ when it is
# missing or older than the sources, and, when REDIS_URL is unset, installs redis-server (serve
# then runs its own, with its data in .data/redis).
set -eu
cd "$(dirname "$0")/.."
. scripts/ensure-deps.sh
ensure_npm_deps
if [ ! -f dist/.build-stamp ] || [ -n "$(find src sources destinations cli toolsets templates package-lock.json tsconfig.json tsconfig.build.json -newer dist/.build-stamp -print -quit)" ]; then
  echo "lestrade: compiling to dist/ (npm run build)" >&2
  npm run --silent build
fi
[ -n "${REDIS_URL:-}" ] || ensure_debian_packages redis-server:redis-server
[ $# -gt 0 ] || set -- serve
exec node dist/cli/main.js "$@"
