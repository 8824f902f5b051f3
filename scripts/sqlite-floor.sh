#!/usr/bin/env bash
# What SQLite alone takes to write what `geospend import expenses` writes: copies a GeoSpend
# file's expenses, their secondary indexes and the map rollups into a new WAL file with the
# sqlite3 shell, in one transaction, and times each step. No CSV, no GeoSpend code: the floor
# under GeoSpend's import for this schema on this machine (Benchmarks/RESULTS.md § The import's
# floor). The R*Tree, the stores and the expenses' triggers are left out, so the floor is low.
#
#   scripts/sqlite-floor.sh out/bench-1000000/geospend.sqlite
#
# The copy is built as GeoSpend builds a first import: rows first, then each index sorted in
# runs on two threads under an 8 MB cache, then the rollups, commit, checkpoint. `WHERE` on
# each copy keeps SQLite from copying records whole (its transfer optimisation), so every row
# is decoded and encoded again, as an insert from values is.
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: scripts/sqlite-floor.sh GEOSPEND_FILE" >&2; exit 2; }
source=$(realpath "$1")
work=$(mktemp -d /tmp/geospend-floor.XXXXXX)
trap 'rm -rf "$work"' EXIT

ddl() { sqlite3 "$source" "SELECT replace(sql, char(10), ' ') || ';' FROM sqlite_schema WHERE $1 AND sql NOT NULL"; }
tables=$(ddl "type = 'table' AND name IN ('expenses', 'map_rollups', 'map_cell_rollups')")
indexes=$(ddl "type = 'index' AND tbl_name = 'expenses'")
rows=$(sqlite3 "$source" "SELECT count(*) FROM expenses")

sqlite3 "$work/floor.sqlite" >"$work/log" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -1048576;
PRAGMA cache_spill = 262144;
$tables
ATTACH '$source' AS source;
SELECT count(*), sum(length(id) + length(geom)) FROM source.expenses;
.timer on
BEGIN;
INSERT INTO expenses SELECT * FROM source.expenses WHERE pk > 0;
PRAGMA cache_size = -8192;
PRAGMA threads = 2;
$indexes
PRAGMA cache_size = -1048576;
PRAGMA threads = 0;
INSERT INTO map_rollups SELECT * FROM source.map_rollups WHERE count > 0;
INSERT INTO map_cell_rollups SELECT * FROM source.map_cell_rollups WHERE count > 0;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL

# One "Run Time" line per timed statement, in the order above; PRAGMAs take ~0 s.
awk -v rows="$rows" -v indexes="$(printf '%s\n' "$indexes" | grep -c .)" '
  /^Run Time/ { t[++n] = $4 }
  END {
    # BEGIN, rows, 2 pragmas, the indexes, 2 pragmas, 2 rollup copies, COMMIT, checkpoint
    i = 2; rowsT = t[i]; i += 3
    for (k = 0; k < indexes; k++) idx += t[i + k]
    i += indexes + 2; roll = t[i] + t[i + 1]; commit = t[i + 2]; ckpt = t[i + 3]
    total = rowsT + idx + roll + commit + ckpt
    printf "SQLite alone, %d expenses: rows %.2f s, %d indexes %.2f s, rollups %.2f s, commit %.2f s, checkpoint %.2f s; total %.2f s\n",
      rows, rowsT, indexes, idx, roll, commit, ckpt, total
  }' "$work/log"
