#!/usr/bin/env bash
# Builds the demo database DB (replacing it): Helsinki's 936 OpenStreetMap places (Data/) and
# 12,000 generated expenses of 40 users, linked to their stores with `snap`. Two stores are every
# user's favourites (--popular: S-Market Sokos Helsinki, Robert's Coffee at the station), so
# their cross-user reports publish every month and most weekday × hour cells under the default
# --min-users 3. Deterministic: the same binary gives the same database content. Ids are demo-N,
# so the README's `import expenses Data/sample-expenses.csv` (ids eN) adds to it.
# Used by `make demo`, scripts/screenshots.sh and the notebooks (one source for the demo data).
# Usage: scripts/demo-database.sh GEOSPEND_BINARY DB
set -euo pipefail
geospend=$1
db=$2
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$db" "$db-wal" "$db-shm"
"$geospend" generate --users 40 --expenses 12000 --seed 7 --places "$root/Data/helsinki-places.geojson" \
    --popular 288130404 --popular 317766538 --id-prefix demo- --out "$tmp/demo-expenses.csv"
"$geospend" import stores "$root/Data/helsinki-places.geojson" --db "$db"
"$geospend" import expenses "$tmp/demo-expenses.csv" --db "$db"
"$geospend" snap --db "$db"
