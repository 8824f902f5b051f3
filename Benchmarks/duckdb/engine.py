"""DuckDB side of the query benchmark: the query list geospend-bench writes, answered by DuckDB 1.5
with its spatial extension, each query timed in-process; answers and latencies written as JSON
for geospend-bench to cross-check against GeoSpend's and put in the tables.

    .venv/bin/python Benchmarks/duckdb/engine.py --db LOADED.duckdb --queries Q.json --out A.json

LOADED.duckdb is the file Benchmarks/duckdb/load.py built (the timed import: tables `stores` and
`expenses` with a GEOMETRY point `geom` = ST_Point(lon, lat) and an R-tree on it). Its tables are
copied into an in-memory database with the same R-trees before the queries (time reported as
`prepare_s`, not in any query time): on the file, DuckDB's compressed columns made an R-tree
lookup cost tens of times more (a 1,054-row box: 275 ms on the file, 1.5 ms in memory, same
session) — this is the setup most favourable to DuckDB we found.

How each workload is asked, in DuckDB's documented terms
(https://duckdb.org/docs/stable/core_extensions/spatial/functions,
https://duckdb.org/docs/stable/core_extensions/spatial/r-tree_indexes):
- radius: the R-tree picks the rows in a box that holds the circle (ST_Intersects with
  ST_MakeEnvelope, in a CTE: with the distance test in the same WHERE the planner scans the whole
  table), then ST_Distance_Spheroid (GeographicLib's inverse geodesic, [lat, lon] order) keeps
  those within r; the same columns PostGIS's query returns, nearest first;
- insights per store: the PostGIS engine's GROUP BY (count, sum, avg, median, min, max, first
  and last visit, the store's name by a join);
- square grid: points projected by ST_Transform (PROJ) into GeoSpend's grid projection, cells
  floor(x / s), floor(y / s) as GeoSpend's MetricGrid places them, count and sum per cell, each
  cell's polygon projected back, written as a GeoJSON FeatureCollection.

Every query is a prepared statement run with execute(params) + fetchall(), timed with
time.perf_counter around both, after `warmup` untimed queries per workload.

Q.json: {"warmup": 20,
         "radius": [{"name": "...", "meters": 500, "queries": [{"lat": .., "lon": .., "user": "u" | null}]}],
         "insights": {"name": "...", "users": ["u", ...]},
         "grid": {"name": "...", "cell_m": 250, "projection": "+proj=laea ...", "currency": "EUR",
                  "runs": 7, "out": "cells.geojson"}}
A.json: {"settings": {...}, "workloads": {NAME: {"kind": "radius" | "insights" | "grid", "millis": [..], "answers": [..]}},
         "grid_check": [..]}
  radius answers: [[id, metres], ...] per query; insights: [[store, currency, count, total_e4], ...]
  (total_e4: the exact total in 1/10,000 of the currency's unit); grid: [[i, j, count, total_e4], ...]
  per run; grid_check: [[currency, i, j, count, total_e4], ...] over every currency (untimed).
"""

import argparse
import json
import math
import pathlib
import time

import duckdb

# WGS 84 (GeoSpend's Geodesic constants): a, and the smallest meridional radius a(1 - e²).
A = 6378137.0
F = 1 / 298.257223563
MERIDIAN_MIN = A * (1 - F * (2 - F))


def spatial_extension_path() -> str:
    """The extension file the PyPI wheel duckdb-extension-spatial ships (no download at run time)."""
    import duckdb_extension_spatial

    root = pathlib.Path(duckdb_extension_spatial.__file__).parent / "extensions"
    found = sorted(root.glob(f"v{duckdb.__version__}/spatial.duckdb_extension"))
    if not found:
        raise SystemExit(f"engine.py: no spatial extension for DuckDB {duckdb.__version__} under {root}; "
                         "run scripts/venv.sh Benchmarks/duckdb/requirements.txt")
    return str(found[0])


def box(lat: float, lon: float, meters: float) -> tuple[float, float, float, float]:
    """A lon/lat box that holds every point within `meters` (geodesic) of (lat, lon): along any
    path latitude moves at most 1/M_min radians per metre and longitude at most 1/(a·cos φ) with
    φ the band's largest |latitude| (N ≥ a). Not for circles reaching a pole or ±180°."""
    dlat = math.degrees(meters / MERIDIAN_MIN)
    far = math.radians(min(89.9, abs(lat) + dlat))
    dlon = math.degrees(meters / (A * math.cos(far)))
    return lon - dlon, lat - dlat, lon + dlon, lat + dlat


RADIUS = """
WITH candidates AS (
    SELECT * FROM expenses WHERE ST_Intersects(geom, ST_MakeEnvelope($west, $south, $east, $north)))
SELECT id, user_id, kind, amount, currency, occurred_at::VARCHAR, title, category, merchant, lat, lon, store_id,
       ST_Distance_Spheroid(ST_Point2D(lat, lon), ST_Point2D($lat, $lon)) AS meters
FROM candidates WHERE meters <= $meters {user} ORDER BY meters
"""
RADIUS_ALL = RADIUS.format(user="")
RADIUS_USER = RADIUS.format(user="AND user_id = $user")

INSIGHTS = """
SELECT e.store_id, e.currency, count(*), sum(e.amount), avg(e.amount), quantile_disc(e.amount, 0.5),
       min(e.amount), max(e.amount), min(e.occurred_at)::VARCHAR, max(e.occurred_at)::VARCHAR, min(s.name)
FROM expenses e LEFT JOIN stores s ON s.id = e.store_id
WHERE e.user_id = $user AND e.kind = 'expense' AND e.store_id IS NOT NULL
GROUP BY e.store_id, e.currency
"""

# Geographic lon/lat on GeoSpend's ellipsoid, no datum change (GeoSpend's projection has none).
LONLAT = "+proj=longlat +ellps=WGS84 +no_defs"


def grid_sql(projection: str, per_currency: bool) -> str:
    """Cells of side $size in `projection` (a PROJ string, inlined: ST_Transform wants constants)."""
    p = projection.replace("'", "''")
    points = f"""
        SELECT currency, amount, ST_Transform(geom, '{LONLAT}', '{p}', always_xy := true) AS xy
        FROM expenses WHERE kind = 'expense' AND geom IS NOT NULL"""
    if per_currency:
        return f"""
            SELECT currency, floor(ST_X(xy) / $size)::BIGINT AS i, floor(ST_Y(xy) / $size)::BIGINT AS j, count(*), sum(amount)
            FROM ({points}) GROUP BY ALL"""
    return f"""
        WITH cells AS (
            SELECT floor(ST_X(xy) / $size)::BIGINT AS i, floor(ST_Y(xy) / $size)::BIGINT AS j,
                   count(*) AS count, sum(amount) AS total, avg(amount) AS average
            FROM ({points} AND currency = $currency) GROUP BY ALL)
        SELECT i, j, count, total, average,
               ST_AsGeoJSON(ST_Transform(ST_MakeEnvelope(i * $size, j * $size, (i + 1) * $size, (j + 1) * $size),
                                         '{p}', '{LONLAT}', always_xy := true))
        FROM cells"""


def e4(total) -> int:
    """An exact DECIMAL total in 1/10,000 units (amounts have at most 4 decimals)."""
    return int(total.scaleb(4))


def timed(con, sql: str, params: dict):
    start = time.perf_counter()
    rows = con.execute(sql, params).fetchall()
    return (time.perf_counter() - start) * 1000, rows


def run_workload(con, queries: list[tuple[str, dict]], warmup: int, answer) -> dict:
    for sql, p in queries[:warmup]:
        con.execute(sql, p).fetchall()
    millis, answers = [], []
    for sql, p in queries:
        ms, rows = timed(con, sql, p)
        millis.append(ms)
        answers.append(answer(rows))
    return {"millis": millis, "answers": answers}


def grid_run(con, spec: dict) -> tuple[float, list]:
    """One timed square-grid heat map: the query, its rows written as a FeatureCollection."""
    sql = grid_sql(spec["projection"], per_currency=False)
    start = time.perf_counter()
    rows = con.execute(sql, {"size": spec["cell_m"], "currency": spec["currency"]}).fetchall()
    with open(spec["out"], "w") as out:
        out.write('{"type":"FeatureCollection","features":[\n')
        out.write(",\n".join(
            f'{{"type":"Feature","geometry":{g},"properties":{{"i":{i},"j":{j},"count":{n},"total":{t},"average":{a}}}}}'
            for i, j, n, t, a, g in rows))
        out.write("\n]}\n")
    return (time.perf_counter() - start) * 1000, [[i, j, n, e4(t)] for i, j, n, t, _, _ in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="the DuckDB file load.py built")
    parser.add_argument("--queries", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    spec = json.load(open(args.queries))
    warmup = spec.get("warmup", 20)

    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute(f"LOAD '{spatial_extension_path()}'")
    start = time.perf_counter()
    con.execute(f"ATTACH '{args.db}' AS loaded (READ_ONLY)")
    for table in ("stores", "expenses"):
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM loaded.{table}")
        con.execute(f"CREATE INDEX {table}_geom ON {table} USING RTREE (geom)")
    con.execute("DETACH loaded")
    prepare_s = time.perf_counter() - start

    extension = con.execute(
        "SELECT extension_version FROM duckdb_extensions() WHERE extension_name = 'spatial'").fetchone()[0]
    settings = {
        "duckdb": duckdb.__version__, "spatial": extension,
        "threads": con.execute("SELECT current_setting('threads')").fetchone()[0],
        "memory_limit": con.execute("SELECT current_setting('memory_limit')").fetchone()[0],
        "prepare_s": round(prepare_s, 3),
    }
    workloads = {}
    for w in spec.get("radius", []):
        queries = []
        for q in w["queries"]:
            west, south, east, north = box(q["lat"], q["lon"], w["meters"])
            p = {"lat": q["lat"], "lon": q["lon"], "meters": float(w["meters"]),
                 "west": west, "south": south, "east": east, "north": north}
            if q.get("user") is not None:
                p["user"] = q["user"]
            queries.append((RADIUS_USER if "user" in p else RADIUS_ALL, p))
        workloads[w["name"]] = {"kind": "radius", **run_workload(con, queries, warmup, lambda rows: [[r[0], r[12]] for r in rows])}
    if "insights" in spec:
        w = spec["insights"]
        workloads[w["name"]] = {"kind": "insights", **run_workload(
            con, [(INSIGHTS, {"user": u}) for u in w["users"]], warmup,
            lambda rows: [[r[0], r[1], r[2], e4(r[3])] for r in rows])}
    result = {"settings": settings, "workloads": workloads}
    if "grid" in spec:
        g = spec["grid"]
        grid_run(con, g)  # warm-up
        millis, answers = [], []
        for _ in range(g.get("runs", 7)):
            ms, cells = grid_run(con, g)
            millis.append(ms)
            answers.append(cells)
        workloads[g["name"]] = {"kind": "grid", "millis": millis, "answers": answers}
        rows = con.execute(grid_sql(g["projection"], per_currency=True), {"size": g["cell_m"]}).fetchall()
        result["grid_check"] = [[c, i, j, n, e4(t)] for c, i, j, n, t in rows]
    with open(args.out, "w") as out:
        json.dump(result, out)


if __name__ == "__main__":
    main()
