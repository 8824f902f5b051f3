#!/usr/bin/env bash
# What SQLite alone takes to write what `geospend import expenses` writes into a new file:
# copies a GeoSpend file's expenses, their indexes and the map rollups into a new WAL file
# beside it with the sqlite3 shell, in one transaction, and times each step. No CSV, no
# GeoSpend code: a floor under GeoSpend's first import for this schema on this machine
# (Benchmarks/RESULTS.md, session 18). The R*Tree, the stores and SpatiaLite's triggers are
# left out, so it is low.
#
#   scripts/sqlite-floor.sh out/bench-1000000/geospend.sqlite
#
# Built as `SpatiaLiteBulkWriter` builds a first import: the id index and the two partial
# indexes no imported row enters (reminders, periods: `indexesLeftEmpty`) kept while the rows
# go in, then the other indexes each sorted in runs on two threads under an 8 MB cache
# (`sortingInRuns`), then the rollups, commit, checkpoint. `WHERE` on each copy keeps SQLite
# from copying records whole (its transfer optimisation), so every row is decoded and encoded
# again, as an insert from values is.
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: scripts/sqlite-floor.sh GEOSPEND_FILE" >&2; exit 2; }
source=$(realpath "$1")
# Beside the source: the same disk as GeoSpend's file, not a /tmp that may be small or in memory.
work=$(mktemp -d "$(dirname "$source")/.sqlite-floor.XXXXXX")
trap 'rm -rf "$work"' EXIT

ddl() { sqlite3 "$source" "SELECT replace(sql, char(10), ' ') || ';' FROM sqlite_schema WHERE $1 AND sql NOT NULL"; }
tables=$(ddl "type = 'table' AND name IN ('expenses', 'map_rollups', 'map_cell_rollups')")
kept="'expenses_user_reminder', 'expenses_period'"
before=$(ddl "type = 'index' AND tbl_name = 'expenses' AND name IN ($kept)")
indexes=$(ddl "type = 'index' AND tbl_name = 'expenses' AND name NOT IN ($kept)")
rows=$(sqlite3 "$source" "SELECT count(*) FROM expenses")

sqlite3 "$work/floor.sqlite" >"$work/log" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -1048576;
PRAGMA cache_spill = 262144;
$tables
$before
ATTACH '$source' AS source;
-- Untimed: brings the source's pages into memory, so the rows' step times writing, not reading.
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
    printf "SQLite alone, %d expenses: rows %.2f s, %d indexes built after them %.2f s, rollups %.2f s, commit %.2f s, checkpoint %.2f s; total %.2f s\n",
      rows, rowsT, indexes, idx, roll, commit, ckpt, total
  }' "$work/log"
