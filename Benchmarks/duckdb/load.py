"""DuckDB side of the import benchmark: the same stores and expenses CSVs that `geospend import`
reads, loaded the way a DuckDB user would, and timed.

What it does mirrors Benchmarks/postgis/load.sql (the PostGIS side), in DuckDB's own terms:
typed tables with the same columns (the expense id the primary key, as GeoSpend and PostGIS keep
it unique), read_csv with explicit column types, a point geometry made from lon/lat by the
spatial extension, and an R-tree index on it (DuckDB spatial's `CREATE INDEX … USING RTREE`,
https://duckdb.org/docs/stable/core_extensions/spatial/r-tree_indexes). `--indexes all` adds
the B-tree-like ART indexes PostGIS gets on user_id and store_id; the default (`rtree`) is the
load the issue measured: the table and its R-tree. Each load ends with a CHECKPOINT, so the
data is in the database file as it is when `geospend import` returns (GeoSpend commits).

The spatial extension is loaded from the PyPI wheel `duckdb-extension-spatial` (no download at
run time): `allow_unsigned_extensions`, then LOAD of the file the wheel ships.

Usage (scripts/venv.sh Benchmarks/duckdb/requirements.txt installs the pinned duckdb and
duckdb-extension-spatial into .venv first):
  .venv/bin/python Benchmarks/duckdb/load.py --db /tmp/x.duckdb --stores stores.csv --expenses expenses.csv
prints one JSON object: {"duckdb": "1.5.5", "stores_s": 0.21, "expenses_s": 2.05, "expenses": 1000000}
(seconds of wall time per table, the file's rows counted back after the load).
"""

import argparse
import json
import os
import pathlib
import time

import duckdb


def spatial_extension_path() -> str:
    import duckdb_extension_spatial

    root = pathlib.Path(duckdb_extension_spatial.__file__).parent / "extensions"
    found = sorted(root.glob(f"v{duckdb.__version__}/spatial.duckdb_extension"))
    if not found:
        raise SystemExit(
            f"load.py: no spatial extension for DuckDB {duckdb.__version__} under {root}; "
            "install matching versions: pip install -r Benchmarks/duckdb/requirements.txt")
    return str(found[0])


STORES = """
CREATE TABLE stores (
    id VARCHAR PRIMARY KEY, name VARCHAR, kind VARCHAR, brand VARCHAR, street VARCHAR, postcode VARCHAR,
    city VARCHAR, country VARCHAR, lat DOUBLE NOT NULL, lon DOUBLE NOT NULL, geom GEOMETRY
);
INSERT INTO stores
SELECT *, ST_Point(lon, lat) FROM read_csv(?, header = true, auto_detect = false, columns = {
    'id': 'VARCHAR', 'name': 'VARCHAR', 'kind': 'VARCHAR', 'brand': 'VARCHAR', 'street': 'VARCHAR',
    'postcode': 'VARCHAR', 'city': 'VARCHAR', 'country': 'VARCHAR', 'lat': 'DOUBLE', 'lon': 'DOUBLE'});
CREATE INDEX stores_geom ON stores USING RTREE (geom);
"""

# amount: DECIMAL(18, 4) is exact for every amount of 2 decimals GeoSpend accepts (10^15 minor
# units: 14 integer digits), so for the generated CSVs (EUR); the largest yen amounts would need
# DECIMAL(20, 4). occurred_at keeps its instant as TIMESTAMPTZ.
EXPENSES = """
CREATE TABLE expenses (
    id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, amount DECIMAL(18, 4) NOT NULL,
    currency VARCHAR NOT NULL, occurred_at TIMESTAMPTZ NOT NULL, title VARCHAR, category VARCHAR,
    merchant VARCHAR, lat DOUBLE, lon DOUBLE, accuracy_m DOUBLE, store_id VARCHAR, notes VARCHAR,
    geom GEOMETRY
);
INSERT INTO expenses
SELECT *, CASE WHEN lat IS NULL THEN NULL ELSE ST_Point(lon, lat) END
FROM read_csv(?, header = true, auto_detect = false, columns = {
    'id': 'VARCHAR', 'user': 'VARCHAR', 'kind': 'VARCHAR', 'amount': 'DECIMAL(18, 4)', 'currency': 'VARCHAR',
    'occurred_at': 'TIMESTAMPTZ', 'title': 'VARCHAR', 'category': 'VARCHAR', 'merchant': 'VARCHAR',
    'lat': 'DOUBLE', 'lon': 'DOUBLE', 'accuracy_m': 'DOUBLE', 'store_id': 'VARCHAR', 'notes': 'VARCHAR'});
CREATE INDEX expenses_geom ON expenses USING RTREE (geom);
"""

EXPENSE_EXTRA_INDEXES = """
CREATE INDEX expenses_user ON expenses (user_id);
CREATE INDEX expenses_store ON expenses (store_id);
"""


def run(con: duckdb.DuckDBPyConnection, script: str, csv: str) -> float:
    start = time.perf_counter()
    con.execute("BEGIN")
    for statement in filter(str.strip, script.split(";")):
        con.execute(statement, [csv] if "?" in statement else [])
    con.execute("COMMIT")
    con.execute("CHECKPOINT")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="DuckDB file to create (replaced if it exists)")
    parser.add_argument("--stores", help="stores CSV (geospend generate --stores-out)")
    parser.add_argument("--expenses", required=True, help="expenses CSV (geospend generate --out)")
    parser.add_argument("--indexes", choices=["rtree", "all"], default="rtree",
                        help="rtree: the R-tree only (default); all: also user_id and store_id, as PostGIS")
    parser.add_argument("--threads", type=int, help="DuckDB's worker threads (default: its own, one per core)")
    args = parser.parse_args()

    for suffix in ("", ".wal"):
        if os.path.exists(args.db + suffix):
            os.remove(args.db + suffix)
    con = duckdb.connect(args.db, config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{spatial_extension_path()}'")
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    result = {"duckdb": duckdb.__version__, "indexes": args.indexes}
    if args.stores:
        result["stores_s"] = round(run(con, STORES, args.stores), 3)
    script = EXPENSES + (EXPENSE_EXTRA_INDEXES if args.indexes == "all" else "")
    result["expenses_s"] = round(run(con, script, args.expenses), 3)
    result["expenses"] = con.execute("SELECT count(*) FROM expenses").fetchone()[0]
    con.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
