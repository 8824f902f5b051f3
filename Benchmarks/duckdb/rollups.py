"""Map rollups in `make bench` (docs/ROLLUPS.md): GeoSpend's H3 heat layer read from the rollups
against DuckDB's own from-scratch aggregation of the same expenses, in the same run.

    .venv/bin/python Benchmarks/duckdb/rollups.py --geospend .build/release/geospend --dir out/bench-N --json Benchmarks/results/rollups-N.json

DIR holds expenses.csv and stores.csv (scripts/bench.sh generates them). Measured, in turn:
- import: `geospend import expenses` (CLI, end to end, after `import stores`) into a database
  with the rollups and into one whose map_rollups table was dropped first (the importer then
  keeps none: MapRollupStorage.apply), and the two files' sizes;
- layer: `geospend export grid --shape h3 --resolution 9 --all-users --min-users 1 --out F`
  (kind expense, the most common currency; CLI end to end, process start to exit), 7 runs after
  a warm-up, from the rollups and with GEOSPEND_MAP_ROLLUPS=scan; the two files must be equal;
  then with `--min-users 3` (the default for all users) from the rollups, 7 runs, and once by a
  scan, which must write the same bytes;
- the same layer in-process (`geospend-bench h3-layer`, with --bench): one process opens the
  store once and writes the file 7 times after a warm-up, as DuckDB's side below runs on an
  open connection; its file must equal the CLI's. The ratio to DuckDB is taken from this
  figure (the CLI's, with process start and SpatiaLite's loading, is kept beside it);
- DuckDB: engine.py's square grid (250 m cells on a Lambert azimuthal equal-area projection
  centred on the data, ST_Transform, floor, count and sum per cell, each cell's polygon written
  as a GeoJSON file: the same code the main comparison times) over the same expenses, in-process
  on an in-memory table (loading it is not timed), 7 runs after a warm-up.
DuckDB has no h3 extension here (PyPI has none; the network reaches only PyPI), so it does the
aggregation it can: the same expenses, cells of similar size (H3 res 9 ≈ 0.105 km², a square of
325 m), not the same cells, and without process start or opening a file (the in-process figure
has neither; the CLI's has both).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import duckdb

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import engine  # noqa: E402  (the main comparison's DuckDB side: the same grid query and file)

RUNS = 7


def timed_run(args: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - start) * 1000


def median_of(runs: int, body) -> list[float]:
    body()  # warm-up: page cache, binary
    return [body() for _ in range(runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--geospend", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--bench", help="geospend-bench, for the in-process figure (Benchmarks/.build/release/geospend-bench)")
    args = parser.parse_args()
    d = pathlib.Path(args.dir)
    expenses, stores = d / "expenses.csv", d / "stores.csv"
    result: dict = {"expenses_csv": str(expenses), "geospend": args.geospend}

    # Import with and without the rollups.
    imports: dict = {}
    for mode in ("with", "without"):
        db = d / f"rollups-{mode}.sqlite"
        for suffix in ("", "-wal", "-shm"):
            pathlib.Path(f"{db}{suffix}").unlink(missing_ok=True)
        subprocess.run([args.geospend, "import", "stores", str(stores), "--db", str(db)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if mode == "without":
            subprocess.run(["sqlite3", str(db), "DROP TABLE map_rollups; DROP TABLE map_cell_rollups"], check=True)
        ms = timed_run([args.geospend, "import", "expenses", str(expenses), "--db", str(db)])
        imports[mode] = {"millis": ms, "bytes": os.path.getsize(db)}
        print(f"import {mode} rollups: {ms / 1000:.1f} s, file {os.path.getsize(db) / 1e6:.0f} MB", file=sys.stderr)
    result["import"] = imports
    db = str(d / "rollups-with.sqlite")
    def count(table: str) -> int:
        return int(subprocess.run(["sqlite3", db, f"SELECT count(*) FROM {table}"], check=True, capture_output=True, text=True).stdout)
    result["rollup_rows"] = count("map_rollups")
    result["cell_rollup_rows"] = count("map_cell_rollups")
    result["cell_rollup_rows_res9"] = count("map_cell_rollups WHERE grid = 'h3' AND level = 9")

    # The H3 layer, from the rollups and by a scan.
    with tempfile.TemporaryDirectory(prefix="rollups-") as tmp:
        outs = {}
        layer: dict = {}
        for mode in ("rollups", "scan"):
            out = f"{tmp}/h3-{mode}.geojson"
            env = dict(os.environ, SOURCE_DATE_EPOCH="1767225600")
            if mode == "scan":
                env["GEOSPEND_MAP_ROLLUPS"] = "scan"
            cmd = [args.geospend, "export", "grid", "--shape", "h3", "--resolution", "9", "--all-users", "--min-users", "1",
                   "--db", db, "--out", out]
            layer[mode] = median_of(RUNS, lambda: timed_run(cmd, env))
            outs[mode] = pathlib.Path(out).read_bytes()
            print(f"H3 res 9 layer, {mode}: p50 {statistics.median(layer[mode]):.0f} ms", file=sys.stderr)
        if outs["rollups"] != outs["scan"]:
            raise SystemExit("rollups.py: the H3 layer from the rollups differs from the scan's")
        # The CLI's default for all users, --min-users 3: the cells' rollups list the users of
        # the cells below it (complementary suppression needs who); timed from the rollups, and
        # once by a scan for the bytes.
        env = dict(os.environ, SOURCE_DATE_EPOCH="1767225600")
        cmd3 = [args.geospend, "export", "grid", "--shape", "h3", "--resolution", "9", "--all-users", "--min-users", "3",
                "--db", db, "--out", f"{tmp}/h3-3.geojson"]
        layer["rollups_min_users_3"] = median_of(RUNS, lambda: timed_run(cmd3, env))
        rolled3 = pathlib.Path(f"{tmp}/h3-3.geojson").read_bytes()
        timed_run(cmd3, dict(env, GEOSPEND_MAP_ROLLUPS="scan"))
        if rolled3 != pathlib.Path(f"{tmp}/h3-3.geojson").read_bytes():
            raise SystemExit("rollups.py: the H3 layer (--min-users 3) from the rollups differs from the scan's")
        print(f"H3 res 9 layer, --min-users 3, rollups: p50 {statistics.median(layer['rollups_min_users_3']):.0f} ms", file=sys.stderr)
        if args.bench:
            out = f"{tmp}/h3-in-process.geojson"
            env = dict(os.environ, SOURCE_DATE_EPOCH="1767225600")
            printed = subprocess.run([args.bench, "h3-layer", db, out, str(RUNS)], check=True, capture_output=True, text=True, env=env).stdout
            layer["in_process"] = json.loads(printed)["millis"]
            if pathlib.Path(out).read_bytes() != outs["rollups"]:
                raise SystemExit("rollups.py: geospend-bench h3-layer wrote other bytes than the CLI")
            print(f"H3 res 9 layer, rollups, in-process: p50 {statistics.median(layer['in_process']):.0f} ms", file=sys.stderr)
        layer_doc = json.loads(outs["rollups"])
        currency = layer_doc["geospend"]["currency"]
        result["layer"] = {"millis": layer, "bytes": len(outs["rollups"]), "cells": len(layer_doc["features"]),
                           "currency": currency}

        # DuckDB's square grid from scratch, with engine.py's query and file writer.
        con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
        con.execute(f"LOAD '{engine.spatial_extension_path()}'")
        start = time.perf_counter()
        con.execute(f"""
            CREATE TABLE expenses AS
            SELECT kind, currency, amount::DECIMAL(18, 4) AS amount, "user" AS user_id,
                   CASE WHEN lat IS NULL THEN NULL ELSE ST_Point(lon, lat) END AS geom
            FROM read_csv('{expenses}', header = true, all_varchar = false)""")
        lat0, lon0 = con.execute("SELECT round(avg(ST_Y(geom))), round(avg(ST_X(geom))) FROM expenses WHERE geom IS NOT NULL").fetchone()
        prepare = time.perf_counter() - start
        spec = {"projection": f"+proj=laea +lat_0={lat0} +lon_0={lon0} +ellps=WGS84 +units=m", "cell_m": 250,
                "currency": currency, "out": f"{tmp}/square-duckdb.geojson"}
        duck = median_of(RUNS, lambda: engine.grid_run(con, spec)[0])
        cells = len(engine.grid_run(con, spec)[1])
        print(f"DuckDB square grid 250 m: p50 {statistics.median(duck):.0f} ms ({cells} cells)", file=sys.stderr)
        result["duckdb"] = {"millis": duck, "cells": cells, "version": duckdb.__version__, "projection": spec["projection"],
                            "load_s": prepare}

    # Like for like: in-process against in-process when geospend-bench ran, else the CLI's time.
    theirs = statistics.median(duck)
    result["ratio_cli_to_duckdb"] = statistics.median(layer["rollups"]) / theirs
    ours = statistics.median(layer.get("in_process", layer["rollups"]))
    result["ratio_to_duckdb"] = ours / theirs
    pathlib.Path(args.json).write_text(json.dumps(result, indent=1))
    print(f"H3 layer from rollups / DuckDB square grid from scratch, p50: {ours / theirs:.3f} (aim ≤ 0.2); "
          f"the CLI end to end: {result['ratio_cli_to_duckdb']:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
