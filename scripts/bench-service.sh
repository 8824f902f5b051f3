#!/usr/bin/env bash
# make bench (section "service"): `geospend serve` under wrk on loopback.
#
#   scripts/bench-service.sh N [SECONDS]   N generated expenses over the Helsinki stores
#
# Generates N expenses (geospend generate, seed 7) into out/bench-service-N/ (BENCH_OUT: another
# folder, e.g. on /tmp), makes a read token for the first user (`users list`: user1),
# starts `geospend serve --port 0` (release build), then for 1, 8 and 64
# connections runs wrk for SECONDS (default 10) against, at random points in the stores' extent:
#
#   near-500m    /api/v1/near with radius 500 m: thousands of rows (~7,000 at 1M), MBs of JSON.
#   near-small   /api/v1/near with a radius that answers with tens of rows, which is what
#                the issue's aim (≥ 5,000 requests/s, p99 ≤ 20 ms) describes: 50 m at 1M
#                expenses, and 50 m × √(1M / N) for smaller N, so that a quick run on 100k
#                (158 m) answers with about as many rows as the 1M run. The rows per answer
#                (mean, median, max over 200 fixed points) are printed above the table.
#   nearest      /api/v1/nearest-stores with k = 5.
#
# Each is run twice: with an import of another N/10 fresh expenses looping into the same file
# in a second process ("import" yes), and without ("no"): readers must not wait on the writer
# (WAL), so their p99 should not move. The imported rows belong to other users than the
# token's (so the answers timed stay the same as the file grows); how many imports finished in
# each round, and how long the server's connections waited on locks, are printed at the end. A third round, "pinned", runs the same import with the
# importer on CPU 1 (`taskset -c 1`) and the server on CPU 0 (wrk left free), so the importer
# cannot take the server's CPU; it is a second row beside "yes", never instead of it (needs 2
# CPUs and taskset). On 2 cores the server then has one core to itself and ends below "yes"
# (Benchmarks/RESULTS.md, session 14): it shows stalls, not the read path's best figure. A
# fourth round, "api", posts the same import to the service itself (`POST
# /api/v1/import/expenses`, as the second user, with a write token), which runs its imports at
# the lowest CPU priority (`writeInBackground`), so its readers run first; that is the service's
# own way to take an import beside its readers. BENCH_IMPORT=no, yes, pinned or api (or a list
# of them) runs only those.
# Writes the table to out/bench-service-N/results.txt. Iterate with a small N (100000: about
# half a minute to generate and import); `scripts/bench-service.sh 1000000 10` is make bench's.
set -euo pipefail
n=${1:?usage: scripts/bench-service.sh N [SECONDS]}
seconds=${2:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GEOSPEND_BIN:-$here/.build/release/geospend}  # GEOSPEND_BIN: another build (a debug one, to try the script)
out=${BENCH_OUT:-$here/out}/bench-service-$n
mkdir -p "$out"
db=$out/bench.sqlite
command -v wrk >/dev/null || { echo "bench-service: wrk is missing (scripts/bootstrap.sh installs it)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench-service: jq is missing (scripts/bootstrap.sh installs it)" >&2; exit 1; }
small=$(awk -v n="$n" 'BEGIN { r = 50 * sqrt(1000000 / n); printf "%d", (r < 50 ? 50 : r) + 0.5 }')

if [ ! -f "$db" ]; then
  "$bin" generate --users 200 --expenses "$n" --seed 7 --out "$out/expenses.csv"
  "$bin" generate --users 200 --expenses $((n / 10 + 1)) --seed 8 --out "$out/more.csv"
  "$bin" import stores "$here/Data/helsinki-places.geojson" --db "$db" >/dev/null
  "$bin" import expenses "$out/expenses.csv" --db "$db" >/dev/null
fi
user=$("$bin" users list --db "$db" --format csv | sed -n 2p | cut -d, -f1)
token=$("$bin" tokens create --user "$user" --db "$db" 2>/dev/null | tail -n 1)
importing_user=$("$bin" users list --db "$db" --format csv | sed -n 3p | cut -d, -f1)  # the "api" round's
write_token=$("$bin" tokens create --user "$importing_user" --scope write --db "$db" 2>/dev/null | tail -n 1)

# LOG_LEVEL=warning: no log line per request (what a busy deployment sets; .info logs each one).
# GEOSPEND_LOCK_WAIT_LOG: at its end the server writes how long its connections waited on locks.
rm -f "$out/lock-waits"
GEOSPEND_LOCK_WAIT_LOG="$out/lock-waits" LOG_LEVEL=${LOG_LEVEL:-warning} "$bin" serve --db "$db" --port 0 2>"$out/serve.log" &
server=$!
importer=
stop_importer() {  # the loop, then the import it was running (killed mid-way it leaves nothing: all or nothing)
  if [ -n "$importer" ]; then
    local running; running=$(pgrep -P "$importer" || true)
    kill "$importer" 2>/dev/null || true; wait "$importer" 2>/dev/null || true
    [ -z "$running" ] || kill $running 2>/dev/null || true
    importer=
  fi
}
trap 'stop_importer; kill $server 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q "listening on" "$out/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$out/serve.log" | head -n 1)
[ -n "$port" ] || { echo "bench-service: serve did not start" >&2; cat "$out/serve.log" >&2; exit 1; }

# Random points in the stores' extent (Data/README.md: lon 24.935–24.954, lat 60.164–60.179).
query() {  # $1: path and fixed parameters before lat/lon
  cat <<LUA
request = function()
  local lat = 60.164 + math.random() * 0.015
  local lon = 24.935 + math.random() * 0.019
  return wrk.format("GET", string.format("$1", lat, lon))
end
LUA
}
query "/api/v1/near?radius=500m&lat=%.6f&lon=%.6f" >"$out/near-500m.lua"
query "/api/v1/near?radius=${small}m&lat=%.6f&lon=%.6f" >"$out/near-small.lua"
query "/api/v1/nearest-stores?k=5&lat=%.6f&lon=%.6f" >"$out/nearest.lua"

# Rows per answer over 200 fixed points of the same extent.
rows() {  # $1: radius in metres
  awk 'BEGIN { srand(1); for (i = 0; i < 200; i++) printf "%.6f %.6f\n", 60.164 + rand() * 0.015, 24.935 + rand() * 0.019 }' |
    while read -r lat lon; do
      curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/near?radius=${1}m&lat=$lat&lon=$lon" | jq .count
    done | sort -n | awk '{ a[NR] = $1; s += $1 } END { printf "mean %.0f, median %d, max %d", s / NR, a[int((NR + 1) / 2)], a[NR] }'
}

# wrk stops at its deadline with requests in flight; the server still answers them (a 500 m
# answer at 64 connections is seconds of work), and the next run's first requests waited
# behind that backlog: a stall of 0.4 s after near-500m at 64 connections, with no import
# running (Benchmarks/RESULTS.md, session 15). So each run starts once the server is idle:
# its CPU time (user + system, /proc) grows by at most 1 tick in half a second; 30 s at most.
settle() {
  local before after
  # In the "api" round the server is never idle (it imports): wait instead until a small
  # query answers within 50 ms twice running (the backlog gone), 30 s at most.
  if [ "${importer_mode:-}" = api ]; then
    local quick=0 t
    for _ in $(seq 60); do
      t=$(curl -s -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/near?radius=${small}m&lat=60.17&lon=24.94")
      if awk -v t="$t" 'BEGIN { exit !(t < 0.05) }'; then quick=$((quick + 1)); [ $quick -ge 2 ] && return; else quick=0; fi
      sleep 0.5
    done
    return
  fi
  for _ in $(seq 60); do
    before=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
    sleep 0.5
    after=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
    [ $((after - before)) -le 1 ] && return
  done
}

start_importer() {  # $1: the round's name (ids stay fresh across rounds); $2: a command to run the importer under (taskset -c 1), "api", or nothing
  # Each import gets fresh ids (a re-import would be a no-op) and other users than the token's
  # ("userN" becomes "importN"; over the API, all rows are the second user's), so the answers
  # timed stay the same while the file grows.
  : >"$out/imports-$1"; : >"$out/importer.log"
  importer_mode=${2:-}
  ( n=0; while true; do
      n=$((n + 1))
      if [ "$importer_mode" = api ]; then
        sed -e "s/^e\([0-9]\)/$1$$-${n}e\1/" -e "2,\$ s/^\([^,]*\),user[0-9]*/\1,$importing_user/" "$out/more.csv" >"$out/round.csv"
        curl -sS -o "$out/import.err" -w '%{http_code}' -X POST -H "Authorization: Bearer $write_token" -H "Content-Type: text/csv" \
          --data-binary @"$out/round.csv" "http://127.0.0.1:$port/api/v1/import/expenses?format=csv" >"$out/import.status" 2>>"$out/import.err" || true
        if [ "$(cat "$out/import.status")" = 200 ]; then echo "$n" >>"$out/imports-$1"; else cat "$out/import.err" >>"$out/importer.log"; fi
        continue
      fi
      sed -e "s/^e\([0-9]\)/$1$$-${n}e\1/" -e '2,$ s/^\([^,]*\),user/\1,import/' "$out/more.csv" >"$out/round.csv"
      if $importer_mode "$bin" import expenses "$out/round.csv" --db "$db" >/dev/null 2>"$out/import.err"; then echo "$n" >>"$out/imports-$1"; else cat "$out/import.err" >>"$out/importer.log"; fi
    done ) &
  importer=$!
}

{
  echo "geospend serve, $n expenses, user $user, wrk ${seconds}s per run, load average $(cut -d' ' -f1-3 /proc/loadavg) ($(date -u +%FT%TZ))"
  echo "rows per answer: near-500m $(rows 500); near-small (${small} m) $(rows "$small")"
  printf '%-11s %6s %6s %10s %9s %9s\n' endpoint import conns req/s p50 p99
  for imports in ${BENCH_IMPORT:-no yes pinned api}; do
    [ "$imports" = yes ] && start_importer yes
    [ "$imports" = api ] && start_importer api api
    if [ "$imports" = pinned ]; then
      taskset -a -p -c 0 "$server" >/dev/null  # every thread of the server on CPU 0
      start_importer pinned "taskset -c 1"
    fi
    for script in near-small nearest near-500m; do
      for c in 1 8 64; do
        settle
        r=$(wrk -t $(( c < 2 ? 1 : 2 )) -c "$c" -d "${seconds}s" --latency -s "$out/$script.lua" \
              -H "Authorization: Bearer $token" "http://127.0.0.1:$port" 2>&1)
        rps=$(echo "$r" | awk '/Requests\/sec/ {print $2}')
        p50=$(echo "$r" | awk '$1 == "50%" {print $2}')
        p99=$(echo "$r" | awk '$1 == "99%" {print $2}')
        non2xx=$(echo "$r" | awk '/Non-2xx/ {print $NF}')
        printf '%-11s %6s %6s %10s %9s %9s%s\n' "$script" "$imports" "$c" "$rps" "$p50" "$p99" "${non2xx:+  non-2xx: $non2xx}"
      done
    done
    stop_importer
    importer_mode=
    [ "$imports" = no ] || echo "imports of $((n / 10 + 1)) expenses finished during the \"$imports\" round: $(wc -l <"$out/imports-$imports")$([ -s "$out/importer.log" ] && echo " (errors: $out/importer.log)")"
    if [ "$imports" = pinned ]; then taskset -a -p -c 0-1 "$server" >/dev/null; fi
  done
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  kill "$server"  # SIGTERM: the server closes its store and logs its lock waits (this block is a subshell: no `wait`)
  for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
  { read -r waited waits <"$out/lock-waits"; } 2>/dev/null || { waited="?"; waits="?"; }
  echo "the server's connections waited on locks (SQLite's busy handler, all rounds): $waited ms in $waits waits"
} | tee "$out/results.txt"
