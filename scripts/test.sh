#!/bin/sh
# npm test: the whole suite. Installs what it needs first: npm dependencies and the real
# components the tests start (redis-server, prometheus, prometheus-alertmanager).
set -eu
cd "$(dirname "$0")/.."
. scripts/ensure-deps.sh
ensure_debian_packages redis-server:redis-server redis-tools:redis-cli openssl:openssl prometheus:prometheus prometheus-alertmanager:prometheus-alertmanager bubblewrap:bwrap socat:socat jq:jq chromium:chromium
ensure_npm_deps
echo "lestrade: type-checking" >&2
npx tsc -p tsconfig.json --noEmit
results=$(mktemp)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
  if (r.numTotalTests === 0) process.exit(1);
' "$results" || status=1
rm -f "$results"
exit $status
