"""Does DuckDB spatial's ST_Distance_Spheroid agree with GeographicLib (Karney's algorithm, the
Python port GeoSpend's geodesy fixtures come from)? 20,000 seeded pairs around the bench data's
region (59–61° N, 22–27° E) at 50 m to 50 km; prints the largest difference in metres.
The bench cross-checks DuckDB's radius distances against GeoSpend's within 1 mm, so this only
explains why no refinement step (as for PostGIS's `<->`) is needed.

    .venv/bin/python Benchmarks/duckdb/spheroid_check.py
"""

import random

import duckdb
from geographiclib.geodesic import Geodesic

from engine import spatial_extension_path

con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute(f"LOAD '{spatial_extension_path()}'")
rng = random.Random(7)
pairs = []
for _ in range(20_000):
    lat, lon = rng.uniform(59.0, 61.0), rng.uniform(22.0, 27.0)
    d = rng.choice([50, 500, 5_000, 50_000])
    pairs.append((lat, lon, lat + rng.uniform(-1, 1) * d / 111_000, lon + rng.uniform(-1, 1) * d / 55_000))
con.execute("CREATE TABLE pairs (lat1 DOUBLE, lon1 DOUBLE, lat2 DOUBLE, lon2 DOUBLE)")
con.executemany("INSERT INTO pairs VALUES (?, ?, ?, ?)", pairs)
rows = con.execute(
    "SELECT lat1, lon1, lat2, lon2, ST_Distance_Spheroid(ST_Point2D(lat1, lon1), ST_Point2D(lat2, lon2)) FROM pairs").fetchall()
worst = max(abs(d - Geodesic.WGS84.Inverse(a, b, c, e)["s12"]) for a, b, c, e, d in rows)
print(f"{len(rows)} pairs, DuckDB {duckdb.__version__}: max |ST_Distance_Spheroid - GeographicLib| = {worst:.3g} m")
