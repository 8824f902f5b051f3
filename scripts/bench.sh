#!/usr/bin/env bash
# make bench / make bench-quick: generate N expenses over 50k stores (region scale), time the
# CSV import through the CLI, then measure query latency in-process (Benchmarks/ package).
set -euo pipefail
n=${1:-1000000}
geospend=.build/release/geospend
dir=out/bench-$n
mkdir -p "$dir"
if [ ! -f "$dir/expenses.csv" ]; then
  echo "generating $n expenses over 50,000 stores…" >&2
  "$geospend" generate --users 1000 --expenses "$n" --seed 1 --scale region --stores 50000 \
    --stores-out "$dir/stores.csv" --out "$dir/expenses.csv"
fi
db=$dir/geospend.sqlite
rm -f "$db" "$db-wal" "$db-shm"
"$geospend" import stores "$dir/stores.csv" --db "$db" 2>/dev/null
start=$(date +%s.%N)
"$geospend" import expenses "$dir/expenses.csv" --db "$db"
end=$(date +%s.%N)
secs=$(echo "$end - $start" | bc)
printf 'import %d expenses (CSV, one transaction, CLI end to end): %.1f s, %.0f rows/s\n' "$n" "$secs" "$(echo "$n / $secs" | bc -l)"
swift build -c release --package-path Benchmarks >/dev/null
Benchmarks/.build/release/geospend-bench "$db" 2000

# Insights: one user with N/10 expenses over the same stores.
heavy=$dir/one-user.sqlite
if [ ! -f "$dir/one-user.csv" ]; then
  "$geospend" generate --users 1 --expenses $((n / 10)) --seed 2 --scale region --stores 50000 --out "$dir/one-user.csv"
fi
rm -f "$heavy" "$heavy-wal" "$heavy-shm"
"$geospend" import stores "$dir/stores.csv" --db "$heavy" 2>/dev/null
"$geospend" import expenses "$dir/one-user.csv" --db "$heavy" 2>/dev/null
echo "(insights user: $((n / 10)) expenses)"
Benchmarks/.build/release/geospend-bench --insights "$heavy" user1

# Store reports (cross-user), before snapping adds more links.
Benchmarks/.build/release/geospend-bench --store-report "$db"

# Map exports (in-process, written to a file in $dir), then peak memory of the CLI's points export.
Benchmarks/.build/release/geospend-bench --export "$db" "$dir"
echo -n "export points, all users (CLI to a file): "
scripts/peak-memory.sh "$geospend" export points --all-users --db "$db" --out "$dir/points.geojson" 2>&1 | grep -v '^note:\|^wrote'
rm -f "$dir/points.geojson"

# Snapping every storeless geotagged expense against the 50,000 stores, CLI end to end.
start=$(date +%s.%N)
"$geospend" snap --db "$db" | head -1
end=$(date +%s.%N)
printf 'snap %d expenses against 50,000 stores (CLI end to end, writes included): %.1f s\n' "$n" "$(echo "$end - $start" | bc)"
