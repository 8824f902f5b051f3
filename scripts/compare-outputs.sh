#!/usr/bin/env bash
# Runs the read-only commands with two geospend binaries on the same database and compares
# their outputs byte for byte: how a refactoring shows it changed no answer.
#
#   scripts/compare-outputs.sh OLD_BINARY NEW_BINARY DATABASE [USER]
#
# USER defaults to the database's first user. Exit 0 when every output is identical, 1 with
# the differing commands listed. Provenance timestamps are pinned by SOURCE_DATE_EPOCH.
# When NEW adds a migration, the old binary cannot open what NEW migrated: set NEW_DATABASE to a
# copy of DATABASE (made with no -wal beside it, or by `sqlite3 DATABASE "VACUUM INTO 'copy'"`)
# for NEW, which migrates it on its first command; its path is written as DATABASE's in NEW's
# outputs before they are compared.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD NEW DATABASE [USER]" >&2; exit 2; }
old=$1 new=$2 db=$3 newdb=${NEW_DATABASE:-$3}
export SOURCE_DATE_EPOCH=1767225600
user=${4:-$(sqlite3 "$db" "SELECT id FROM users ORDER BY id LIMIT 1")}
store=$(sqlite3 "$db" "SELECT store_id FROM expenses WHERE store_id IS NOT NULL GROUP BY store_id ORDER BY count(*) DESC, store_id LIMIT 1")
read -r lat lon < <(sqlite3 -separator ' ' "$db" "SELECT lat, lon FROM stores WHERE id = '$store'")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commands=(
  "info"
  "near --user $user --lat $lat --lon $lon --radius 5km --format json"
  "near --user $user --lat $lat --lon $lon --radius 2km"
  "nearest-stores --lat $lat --lon $lon -k 20 --format json"
  "insights --user $user --format json"
  "insights --user $user --by store --format csv"
  "insights --user $user --from 2025-03-01 --to 2025-06-30 --format markdown"
  "summary --user $user --format json"
  "report store $store --format json"
  "report stores --near $lat,$lon --radius 3km --format csv"
  "report stores --limit 50 --format json"
  "snap --user $user --dry-run --format json"
  "export points --user $user --out -"
  "export points --user $user --format csv --out -"
  "export grid --user $user --shape hex --cell 250m --out -"
  "export grid --all-users --shape square --cell 500m --out -"
  "export density --user $user --out -"
  "export places --user $user --out -"
  "export leaflet-heat --user $user --out -"
  "expenses list --user $user --limit 50 --format json"
  "users export $user --out -"
  "budgets list --user $user"
  "periods list --user $user"
)
failed=0
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  "$old" $c --db "$db" >"$work/old" 2>"$work/old.err"; a=$?
  # shellcheck disable=SC2086
  "$new" $c --db "$newdb" >"$work/new" 2>"$work/new.err"; b=$?
  if [ "$newdb" != "$db" ]; then
    for f in new new.err; do sed -i "s|$newdb|$db|g" "$work/$f"; done
  fi
  if [ $a -ne $b ] || ! cmp -s "$work/old" "$work/new" || ! cmp -s "$work/old.err" "$work/new.err"; then
    echo "DIFFERS: geospend $c (exit $a vs $b)"; failed=1
  else
    echo "same:    geospend $c ($(wc -c <"$work/new") bytes)"
  fi
done
exit $failed
