#!/usr/bin/env python3
"""Checks a `geospend export grid --shape h3` layer against PyPI h3 and DuckDB (written for GeoSpend).

Usage: check_h3_layer.py EXPENSES_CSV LAYER_GEOJSON RESOLUTION MIN_COUNT
The layer is read by GDAL (pyogrio/geopandas); each expense's cell comes from h3-py
(latlng_to_cell); DuckDB joins the layer's `h3` column with those ids and groups them (DuckDB's
h3 community extension cannot be installed offline, so h3-py supplies the ids and DuckDB the join).
Every published cell must hold exactly the EUR expenses h3-py puts in it (count and total), have
count >= MIN_COUNT, carry h3-py's boundary (to the layer's 6 decimals, split at ±180° allowed),
and the hidden cells must be those the layer's provenance says it suppressed. Prints "ok".
"""
import csv
import json
import sys
from decimal import Decimal

import duckdb
import geopandas
import h3
import pandas
from shapely.affinity import translate
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

expenses_csv, layer_path, res, min_count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [r for r in csv.DictReader(open(expenses_csv)) if r["currency"] == "EUR" and r["kind"] == "expense"]
ids = pandas.DataFrame({
    "h3": [h3.latlng_to_cell(float(r["lat"]), float(r["lon"]), res) for r in rows],
    "cents": [int(Decimal(r["amount"]) * 100) for r in rows],
})
layer = geopandas.read_file(layer_path, engine="pyogrio")
cells = pandas.DataFrame({"h3": layer["h3"], "count": layer["count"], "total": layer["total"]})
joined = duckdb.sql(
    "SELECT c.h3, any_value(c.count) AS published, count(*) AS n, sum(i.cents) AS cents, any_value(c.total) AS total "
    "FROM cells c JOIN ids i ON i.h3 = c.h3 GROUP BY c.h3").df()
problems = []
if len(joined) != len(layer):
    problems.append(f"{len(layer) - len(joined)} published cells hold no expense by h3-py")
for _, r in joined.iterrows():
    if r["published"] != r["n"] or round(r["total"] * 100) != r["cents"]:
        problems.append(f"{r['h3']}: layer {r['published']} / {r['total']}, h3-py {r['n']} / {r['cents'] / 100}")
    if r["published"] < min_count:
        problems.append(f"{r['h3']}: count {r['published']} < {min_count}")
for h, geom in zip(layer["h3"], layer.geometry):
    parts = list(geom.geoms) if geom.geom_type == "MultiPolygon" else [geom]
    if not geom.is_valid or not all(p.exterior.is_ccw for p in parts):
        problems.append(f"{h}: invalid or not counter-clockwise")
    poles = [lat for lat in (90, -90) if h3.latlng_to_cell(lat, 0, res) == h]
    if poles:  # drawn to the pole along ±180°
        if not geom.buffer(1e-9).contains(Point(0, poles[0])):
            problems.append(f"{h}: holds the pole but its polygon does not")
    elif geom.geom_type == "Polygon":
        want = Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(h)])
        if not geom.equals_exact(want, 2e-6):
            problems.append(f"{h}: boundary differs from h3-py's")
    elif unary_union([translate(p, 360 if p.bounds[0] < 0 else 0) for p in parts]).hausdorff_distance(
            Polygon([((lng + 360) % 360, lat) for lat, lng in h3.cell_to_boundary(h)])) > 2e-6:  # 6 decimals
        problems.append(f"{h}: split at ±180° with another area than h3-py's cell")
provenance = json.load(open(layer_path))["geospend"]["suppression"]
hidden = set(ids["h3"]) - set(layer["h3"])
if len(hidden) != provenance["suppressed_features"]:
    problems.append(f"{len(hidden)} cells hidden, provenance says {provenance['suppressed_features']}")
print("ok" if not problems else "\n".join(problems[:20]))
