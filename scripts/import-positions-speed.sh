#!/usr/bin/env bash
# Issue 36's import goal end to end: `geospend import positions` of a Takeout Records.json of N
# fixes (default 1,000,000) into a new SpatiaLite file and into PostgreSQL + PostGIS (a throwaway
# server, scripts/with-postgis.sh), each twice: the first import adds every fix, the second finds
# them all present. Wall time and peak resident memory by /usr/bin/time; prints one JSON object.
#   scripts/import-positions-speed.sh [N]      GEOSPEND another binary (default the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
geospend=$(realpath "${GEOSPEND:-.build/release/geospend}")
dir=$(mktemp -d /tmp/geospend-positions-speed-XXXXXX)
chmod 755 "$dir"
trap 'rm -rf "$dir"' EXIT
records=$dir/Records.json

# Fixes every 30 s around Helsinki with a few metres of jitter, as a phone records them.
python3 - "$n" "$records" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(36)
t = 1_767_225_600_000  # 2026-01-01T00:00:00Z
with open(path, "w") as f:
    f.write('{"locations": [\n')
    for i in range(n):
        lat = 601_699_000 + rng.randint(-200_000, 200_000)
        lon = 249_384_000 + rng.randint(-400_000, 400_000)
        sep = ",\n" if i + 1 < n else "\n"
        f.write(f'{{"latitudeE7": {lat}, "longitudeE7": {lon}, "accuracy": {rng.randint(3, 60)}, "timestampMs": "{t}"}}{sep}')
        t += 30_000
    f.write("]}\n")
PY

# One import: "seconds peak_kib" of /usr/bin/time, the command's own lines to stderr.
timed() {
  /usr/bin/time -f '%e %M' -o "$dir/time" "$geospend" import positions "$records" --user speed --db "$1" >&2
  cat "$dir/time"
}
file_first=$(timed "$dir/speed.sqlite")
file_again=$(timed "$dir/speed.sqlite")
export -f timed
export geospend records dir
pg=$(scripts/with-postgis.sh bash -c 'echo "$(timed "$GEOSPEND_TEST_POSTGRES")|$(timed "$GEOSPEND_TEST_POSTGRES")"')
pg_first=${pg%%|*}
pg_again=${pg##*|}
python3 - "$n" "$(stat -c %s "$records")" "$file_first" "$file_again" "$pg_first" "$pg_again" <<'PY'
import json, sys
n, size = int(sys.argv[1]), int(sys.argv[2])
def run(text):
    seconds, kib = text.split()
    return {"seconds": float(seconds), "peak_rss_mib": round(int(kib) / 1024, 1)}
print(json.dumps({
    "positions": n, "records_json_bytes": size,
    "sqlite": {"first": run(sys.argv[3]), "again": run(sys.argv[4])},
    "postgresql": {"first": run(sys.argv[5]), "again": run(sys.argv[6])},
}))
PY
