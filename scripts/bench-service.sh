#!/usr/bin/env bash
# make bench (section "service"): `geospend serve` under wrk on loopback.
#
#   scripts/bench-service.sh N [SECONDS]   N generated expenses over the Helsinki stores
#
# Generates N expenses (geospend generate, seed 7) into out/bench-service-N/, makes a read token,
# starts `geospend serve --port 0` (release build), then for 1, 8 and 64 connections runs wrk
# for SECONDS (default 10) against /api/v1/near (500 m around random points in the stores'
# extent) and /api/v1/nearest-stores (k = 5), while a second process imports another N/10
# expenses into the same file in a loop (the readers must not wait for it: WAL). Writes the
# requests per second and p50/p99 latencies to out/bench-service-N/results.txt.
set -euo pipefail
n=${1:?usage: scripts/bench-service.sh N [SECONDS]}
seconds=${2:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GEOSPEND_BIN:-$here/.build/release/geospend}  # GEOSPEND_BIN: another build (a debug one, to try the script)
out=$here/out/bench-service-$n
mkdir -p "$out"
db=$out/bench.sqlite
command -v wrk >/dev/null || { echo "bench-service: wrk is missing (scripts/bootstrap.sh installs it)" >&2; exit 1; }

if [ ! -f "$db" ]; then
  "$bin" generate --users 200 --expenses "$n" --seed 7 --out "$out/expenses.csv"
  "$bin" generate --users 200 --expenses $((n / 10 + 1)) --seed 8 --out "$out/more.csv"
  "$bin" import stores "$here/Data/helsinki-places.geojson" --db "$db" >/dev/null
  "$bin" import expenses "$out/expenses.csv" --db "$db" >/dev/null
fi
user=$("$bin" users list --db "$db" --format csv | sed -n 2p | cut -d, -f1)
token=$("$bin" tokens create --user "$user" --db "$db" 2>/dev/null | tail -n 1)

"$bin" serve --db "$db" --port 0 2>"$out/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; [ -n "${importer:-}" ] && kill $importer 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q "listening on" "$out/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$out/serve.log" | head -n 1)
[ -n "$port" ] || { echo "bench-service: serve did not start" >&2; cat "$out/serve.log" >&2; exit 1; }

# Random points in the stores' extent (Data/README.md: lon 24.935–24.954, lat 60.164–60.179).
cat >"$out/near.lua" <<'LUA'
request = function()
  local lat = 60.164 + math.random() * 0.015
  local lon = 24.935 + math.random() * 0.019
  return wrk.format("GET", string.format("/api/v1/near?lat=%.6f&lon=%.6f&radius=500m", lat, lon))
end
LUA
sed 's|/api/v1/near?lat=%.6f&lon=%.6f&radius=500m|/api/v1/nearest-stores?lat=%.6f\&lon=%.6f\&k=5|' "$out/near.lua" >"$out/nearest.lua"

# An import running the whole time: re-importing is a no-op after the first round, so each
# round's file gets fresh ids.
( round=0; while true; do
    round=$((round + 1))
    sed "s/^e\([0-9]\)/r${round}e\1/" "$out/more.csv" >"$out/round.csv"
    "$bin" import expenses "$out/round.csv" --db "$db" >/dev/null 2>&1 || true
  done ) &
importer=$!

{
  echo "geospend serve, $n expenses, wrk ${seconds}s per run, an import looping alongside ($(date -u +%FT%TZ))"
  printf '%-16s %6s %10s %9s %9s\n' endpoint conns req/s p50 p99
  for script in near nearest; do
    for c in 1 8 64; do
      r=$(wrk -t $(( c < 2 ? 1 : 2 )) -c "$c" -d "${seconds}s" --latency -s "$out/$script.lua" \
            -H "Authorization: Bearer $token" "http://127.0.0.1:$port" 2>&1)
      rps=$(echo "$r" | awk '/Requests\/sec/ {print $2}')
      p50=$(echo "$r" | awk '$1 == "50%" {print $2}')
      p99=$(echo "$r" | awk '$1 == "99%" {print $2}')
      non2xx=$(echo "$r" | awk '/Non-2xx/ {print $NF}')
      printf '%-16s %6s %10s %9s %9s%s\n' "$script" "$c" "$rps" "$p50" "$p99" "${non2xx:+  non-2xx: $non2xx}"
    done
  done
} | tee "$out/results.txt"
