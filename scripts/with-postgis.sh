#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 + PostGIS 3 server (scripts/postgis.sh): its
# address goes into $GEOSPEND_TEST_POSTGRES as postgresql://postgres@127.0.0.1:PORT/postgres, and
# the server and its folder are gone afterwards, whatever the command's exit status (which is the
# script's); last, it prints the most client connections it saw at once and the server's CPU.
# (The test of a hot standby starts a pair of its own: Tests/GeoSpendCLITests/ReplicaPair.swift.)
#
#   scripts/with-postgis.sh swift test
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Under TMPDIR: make test points it at a folder in memory (Makefile, TEST_TMP).
dir=$(mktemp -d "${TMPDIR:-/tmp}/geospend-pg-XXXXXX")
chmod 755 "$dir"
trap '"$here/postgis.sh" stop "$dir/server"; rm -rf "$dir"' EXIT
url() { echo "postgresql://postgres@127.0.0.1:$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"$1")/postgres"; }
GEOSPEND_TEST_POSTGRES=$(url "$("$here/postgis.sh" start "$dir/server")")
export GEOSPEND_TEST_POSTGRES
echo "PostGIS for the tests: $GEOSPEND_TEST_POSTGRES" >&2
# The most client connections seen at once, printed at the end: the server allows
# max_connections (scripts/postgis.sh), and a run that comes near it says so here first. A
# sample every 2 s (the sampler's own connection not counted) can miss a shorter peak: the
# figure is a lower bound.
peak() {
  local most=0 n
  while sleep 2; do
    n=$(psql "$GEOSPEND_TEST_POSTGRES" -qAt -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()" 2>/dev/null) || continue
    if [ "$n" -gt "$most" ]; then most=$n; echo "$most" >"$dir/peak"; fi
  done
}
peak & sampler=$!
status=0
"$@" || status=$?
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
echo "PostgreSQL for the tests: $(cat "$dir/peak" 2>/dev/null || echo 0) client connections at once, the most of samples every 2 s (max_connections $(psql "$GEOSPEND_TEST_POSTGRES" -qAt -c 'SHOW max_connections'))" >&2
# The server's CPU, which a `time` of the command does not see (it is no child of it): the
# postmaster's own and its ended backends' (fields 14-17 of /proc/PID/stat, in ticks).
cpu() {
  local pid
  pid=$(head -n 1 "$1/data/postmaster.pid" 2>/dev/null) || { echo "?"; return; }
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15 + $16 + $17) / hz }' "/proc/$pid/stat" 2>/dev/null || echo "?"
}
echo "PostgreSQL's CPU: server $(cpu "$dir/server") s" >&2
exit "$status"
