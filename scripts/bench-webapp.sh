#!/usr/bin/env bash
# make bench-webapp: the web app's first screen for a user with N expenses (issue 41: usable in
# ≤ 1 s at 100k), in Debian's headless Chromium through Selenium (Tests/validators/webapp_e2e.py
# --ready-only).
#
#   scripts/bench-webapp.sh [N] [RUNS]      default 100000 expenses of one user, 7 page loads
#
# Generates N expenses of one user (geospend generate, seed 7) over the Helsinki places, imports
# them, makes a read token, starts `geospend serve --port 0` (release build; GEOSPEND_BIN for
# another) and opens /#token=…&month=M for the month with the most expenses, RUNS times, each in
# a fresh browser. Per load: Navigation Timing's responseEnd and domContentLoadedEventEnd, and the
# app's `geospend-ready` mark (figures and map drawn), all in ms since the navigation started.
# The first load is a warm-up (the service's caches, Chromium's disk cache are per browser so
# only the server warms); the table gives the median and the largest of the others. Writes
# Benchmarks/results/webapp-N.json and prints a Markdown table for Benchmarks/RESULTS.md.
set -euo pipefail
n=${1:-100000}
runs=${2:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${GEOSPEND_BIN:-$here/.build/release/geospend}
out=${BENCH_OUT:-$here/out}/bench-webapp-$n
python=$here/.venv/bin/python
mkdir -p "$out"
db=$out/webapp.sqlite
if [ ! -f "$db" ]; then
  "$bin" generate --users 1 --expenses "$n" --seed 7 --out "$out/expenses.csv"
  "$bin" import stores "$here/Data/helsinki-places.geojson" --db "$db" >/dev/null
  "$bin" import expenses "$out/expenses.csv" --db "$db" >/dev/null
fi
user=$("$bin" users list --format json --db "$db" | "$python" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
month=$(cut -d, -f6 "$out/expenses.csv" | tail -n +2 | cut -c1-7 | sort | uniq -c | sort -rn | head -1 | awk '{print $2}')
token=$("$bin" tokens create --user "$user" --expires 1d --db "$db" | tail -n 1)
log=$out/serve.log
"$bin" serve --db "$db" --port 0 2>"$log" &
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null' EXIT
for _ in $(seq 600); do grep -q "listening on" "$log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$log" | head -1)
[ -n "$port" ] || { echo "bench-webapp: serve did not start: $(cat "$log")" >&2; exit 1; }
echo "bench-webapp: $n expenses of $user, month $month, $runs loads on port $port" >&2
rm -f "$out/loads.jsonl"
for i in $(seq "$runs"); do
  "$python" "$here/Tests/validators/webapp_e2e.py" --url "http://127.0.0.1:$port" --token "$token" --month "$month" --ready-only \
    >>"$out/loads.jsonl"
  echo >>"$out/loads.jsonl"
done
mkdir -p "$here/Benchmarks/results"
"$python" - "$out/loads.jsonl" "$here/Benchmarks/results/webapp-$n.json" "$n" "$month" <<'PY'
import json, statistics, sys, platform, os
loads = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
n, month = int(sys.argv[3]), sys.argv[4]
rows = []
for l in loads:
    nav = l["navigation"] or {}
    rows.append({"response_end_ms": nav.get("responseEnd"), "dom_content_loaded_ms": nav.get("domContentLoadedEventEnd"),
                 "ready_ms": (l["ready_marks"] or [None])[0], "points_drawn": l.get("drawn_points"), "error": l.get("error"),
                 "requests": l.get("requests")})
measured = rows[1:] if len(rows) > 1 else rows
ready = [r["ready_ms"] for r in measured if r["ready_ms"] is not None]
summary = {"expenses": n, "month": month, "points_in_month": rows[0]["points_drawn"], "loads": rows,
           "ready_median_ms": statistics.median(ready) if ready else None, "ready_max_ms": max(ready) if ready else None,
           "aim_ms": 1000, "cpus": os.cpu_count(), "machine": platform.machine()}
json.dump(summary, open(sys.argv[2], "w"), indent=2)
print(f"| expenses | month (points drawn) | loads | DOMContentLoaded median | geospend-ready median | max | aim |")
print(f"| --- | --- | --- | --- | --- | --- | --- |")
dcl = statistics.median([r["dom_content_loaded_ms"] for r in measured if r["dom_content_loaded_ms"] is not None])
print(f"| {n:,} | {month} ({summary['points_in_month']:,}) | {len(measured)} (+1 warm-up) | {dcl:.0f} ms | "
      f"{summary['ready_median_ms']:.0f} ms | {summary['ready_max_ms']:.0f} ms | ≤ 1000 ms |")
PY
