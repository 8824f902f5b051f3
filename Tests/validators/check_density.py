"""Checks a density surface (`geospend export density`) against the expenses it was made from.

Usage: check_density.py EXPENSES.csv LAYER.geojson CELL_M BANDWIDTH_M [EXPENSES LAYER CELL BANDWIDTH ...]

For each surface prints "LAYER: ok" and its figures, or "LAYER: " and one problem a line; the exit
status is 1 if any surface has a problem. Several surfaces go in one run because the imports
below take longer than a small surface's checks.

Written for the tests from GeoSpend's documented definition (docs/GRIDS.md, `export density
--help`): the quartic kernel K(d) = 3/(pi h^2) (1 - d^2/h^2)^2 for d < h, weighted by amount,
evaluated at each square cell's centre, d measured in the plane of the cell's Lambert azimuthal equal-area projection. It uses
shapely 2, pyproj and numpy (Tests/validators/requirements.txt), none of GeoSpend's code:

- geometry: every cell a Polygon or MultiPolygon, valid (`shapely.is_valid`), exterior rings
  counter-clockwise, positions in range (check_grid_cells.geometry_problems);
- coverage: every expense inside exactly one cell, or on the edge of some (cells tile without
  overlap; with h > c the cell holding an expense always has its centre within h of it);
- values: each cell's density and count recomputed from the CSV: the cell id names the
  projection's centre (`@lat,lon:` one projection, `@regionlat,lon:` a region's) and the cell's
  column i and row j, so its centre is ((i + 1/2) c, (j + 1/2) c), or (i c, j c) for regional
  squares; every expense is projected by PROJ (`+proj=laea +ellps=WGS84`) and summed with numpy;
- mass: the surface integrates to the total: sum of density (per km2) x the cell's drawn area
  on the WGS84 ellipsoid (pyproj.Geod) within 1 % of the CSV's total (midpoint sampling of the
  kernel; the test uses h >= 5 c).
"""
import csv
import json
import re
import sys

import numpy
import shapely
from pyproj import Geod, Transformer
from shapely.geometry import Point, shape

from check_grid_cells import geometry_problems

ID = re.compile(r"^square-[0-9.]+m@(region)?(-?[0-9.]+),(-?[0-9.]+):(-?[0-9]+),(-?[0-9]+)$")


def main(expenses_path, layer_path, c, h):
    doc = json.load(open(layer_path))
    features = doc["features"]
    geometries, problems = geometry_problems(features)

    rows = list(csv.DictReader(open(expenses_path, newline="")))
    lats = numpy.array([float(r["lat"]) for r in rows])
    lons = numpy.array([float(r["lon"]) for r in rows])
    minor = numpy.array([round(float(r["amount"]) * 100) for r in rows], dtype=float)

    tree = shapely.STRtree(geometries)
    for r, lat, lon in zip(rows, lats, lons):
        looks = [Point(lon, lat)] + ([Point(-lon, lat)] if abs(lon) == 180 else [])
        inside, hits = set(), set()
        for p in looks:
            inside.update(int(k) for k in tree.query(p, predicate="within"))
            hits.update(int(k) for k in tree.query(p, predicate="covered_by"))
        if len(inside) > 1 or not hits:
            problems.append(f"expense {r['id']} at {lat},{lon} is in {len(inside)} cells, on {len(hits)}")

    # Cells grouped by projection; each group recomputed at once.
    groups = {}
    for k, feature in enumerate(features):
        m = ID.match(feature["properties"]["cell_id"])
        if not m:
            problems.append(f"{feature.get('id')}: cell id not understood")
            continue
        regional, lat0, lon0, i, j = m.group(1) is not None, float(m.group(2)), float(m.group(3)), int(m.group(4)), int(m.group(5))
        centre = 0 if regional else 0.5
        groups.setdefault((lat0, lon0), []).append((k, (i + centre) * c, (j + centre) * c))
    scale = 3 / (numpy.pi * h * h) / 100 * 1e6  # minor units x kernel per m2 -> major per km2
    worst = 0.0
    largest = max((f["properties"]["density"] for f in features), default=0)
    for (lat0, lon0), cells in groups.items():
        laea = Transformer.from_crs("EPSG:4326", f"+proj=laea +lat_0={lat0} +lon_0={lon0} +ellps=WGS84 +units=m", always_xy=True)
        x, y = laea.transform(lons, lats)
        for k, cx, cy in cells:
            d2 = (x - cx) ** 2 + (y - cy) ** 2
            near = d2 < h * h
            u = 1 - d2[near] / (h * h)
            density = float((minor[near] * u * u).sum()) * scale
            props = features[k]["properties"]
            # Written with 6 decimals: 5e-7 of rounding, and sums in another order.
            off = abs(props["density"] - density)
            worst = max(worst, off / max(largest, 1e-300))
            if off > 1e-6 + 1e-9 * largest:
                problems.append(f"{features[k].get('id')}: density {props['density']}, recomputed {density:.6f}")
            if props["count"] != int(near.sum()):
                problems.append(f"{features[k].get('id')}: count {props['count']}, recomputed {int(near.sum())}")

    geod = Geod(ellps="WGS84")
    mass = 0.0
    for feature, geom in zip(features, geometries):
        parts = geom.geoms if geom.geom_type == "MultiPolygon" else [geom]
        area = sum(abs(geod.geometry_area_perimeter(part)[0]) for part in parts)
        mass += feature["properties"]["density"] * area / 1e6
    total = float(minor.sum()) / 100
    if abs(mass - total) > 0.01 * total:
        problems.append(f"the surface integrates to {mass:.2f}, the expenses total {total:.2f}")
    if problems:
        print(f"{layer_path}: " + "\n".join(problems[:40]))
        return 1
    print(f"{layer_path}: ok, cells {len(features)} expenses {len(rows)} projections {len(groups)} mass {mass:.4f} of {total:.2f} "
          f"(off {abs(mass - total) / total:.2e}) worst density off {worst:.1e} of the largest")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or len(args) % 4:
        sys.exit(__doc__.split("\n\n")[1])
    failed = [main(e, l, float(c), float(h)) for e, l, c, h in zip(*[iter(args)] * 4)]
    sys.exit(1 if any(failed) else 0)
