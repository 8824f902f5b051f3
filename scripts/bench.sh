#!/usr/bin/env bash
# make bench / make bench-quick: GeoSpend against PostgreSQL 15 + PostGIS 3 and DuckDB 1.5 with its
# spatial extension on the same data, in the same run, answers cross-checked
# (Benchmarks/Sources/geospend-bench/Compare.swift).
#
#   scripts/bench.sh N...    one comparison per size N (expenses over 50,000 stores)
#
# For each N: generate the data once (out/bench-N/), start a throwaway PostGIS server
# (scripts/postgis.sh), import into all three (DuckDB from the project venv: Benchmarks/duckdb/),
# run the query list, write Benchmarks/results/bench-N.json, then GeoSpend-only figures (SQLite's
# floor under the import, heavy-user insights, store reports, points export, snap). At the end
# the tables in Benchmarks/RESULTS.md are regenerated from every results file.
# BENCH_QUERIES (default 500) sets the queries per workload.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/bench.sh N..." >&2; exit 2; }
root=$(pwd)
geospend=$root/.build/release/geospend
bench=$root/Benchmarks/.build/release/geospend-bench
scripts/postgis.sh install  # libpq-dev before the harness links against it
scripts/venv.sh Benchmarks/duckdb/requirements.txt  # duckdb and its spatial extension, pinned
[ -f Benchmarks/duckdb/load.py ] || { echo "bench: Benchmarks/duckdb/load.py (DuckDB's timed import) is missing" >&2; exit 1; }
swift build -c release --package-path Benchmarks >/dev/null
mkdir -p Benchmarks/results

pgdir=$(mktemp -d /tmp/geospend-pg.XXXXXX)
trap 'scripts/postgis.sh stop "$pgdir"' EXIT
conninfo=$(scripts/postgis.sh start "$pgdir")
echo "PostGIS server: $conninfo (data in $pgdir, removed at exit)" >&2

for n in "$@"; do
  dir=$root/out/bench-$n
  mkdir -p "$dir"
  if [ ! -f "$dir/expenses.csv" ]; then
    echo "generating $n expenses over 50,000 stores…" >&2
    "$geospend" generate --users 1000 --expenses "$n" --seed 1 --scale region --stores 50000 \
      --stores-out "$dir/stores.csv" --out "$dir/expenses.csv"
  fi
  runs=1
  [ "$n" -le 100000 ] && runs=3
  echo "== $n expenses: GeoSpend vs PostGIS and DuckDB ==" >&2
  "$bench" compare --expenses "$dir/expenses.csv" --stores "$dir/stores.csv" --work "$dir" \
    --postgres "$conninfo" --geospend "$geospend" --python "$root/.venv/bin/python" \
    --json "Benchmarks/results/bench-$n.json" \
    --queries "${BENCH_QUERIES:-500}" --import-runs "$runs"

  echo "== $n expenses: GeoSpend only ==" >&2
  db=$dir/geospend.sqlite
  # The import's floor: SQLite alone writing the same expenses, indexes and rollups.
  scripts/sqlite-floor.sh "$db" || echo "bench: scripts/sqlite-floor.sh failed (the figures below do not need it)" >&2
  # Insights of one heavy user: N/10 expenses over the same stores.
  heavy=$dir/one-user.sqlite
  if [ ! -f "$dir/one-user.csv" ]; then
    "$geospend" generate --users 1 --expenses $((n / 10)) --seed 2 --scale region --stores 50000 --out "$dir/one-user.csv"
  fi
  rm -f "$heavy" "$heavy-wal" "$heavy-shm"
  "$geospend" import stores "$dir/stores.csv" --db "$heavy" 2>/dev/null
  "$geospend" import expenses "$dir/one-user.csv" --db "$heavy" 2>/dev/null
  "$bench" insights "$heavy" user1
  "$bench" store-report "$db"
  "$bench" points-export "$db" "$dir"
  echo -n "export points, all users (CLI to a file): "
  scripts/peak-memory.sh "$geospend" export points --all-users --allow-raw-positions --db "$db" --out "$dir/points.geojson" 2>&1 | grep -v '^note:\|^wrote'
  rm -f "$dir/points.geojson"
  # Snapping rewrites store links, so it runs last.
  start=$(date +%s.%N)
  "$geospend" snap --db "$db" | head -1
  end=$(date +%s.%N)
  printf 'snap %d expenses against 50,000 stores (CLI end to end, writes included): %.1f s\n' "$n" "$(echo "$end - $start" | bc)"
done

# Regenerate the tables between the markers in Benchmarks/RESULTS.md from every results file.
"$bench" render Benchmarks/results/bench-*.json | python3 scripts/results_section.py bench-tables
echo "tables written to Benchmarks/RESULTS.md; raw numbers in Benchmarks/results/" >&2
