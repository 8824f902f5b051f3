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
