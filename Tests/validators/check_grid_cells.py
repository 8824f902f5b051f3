"""Checks a hex or square grid layer (`geospend export grid`) against the expenses it was made from.

Usage: check_grid_cells.py EXPENSES.csv LAYER.geojson CELL_M SHAPE

Prints "ok" and a line of figures, or one line per problem (exit status 1). Checked with
shapely 2 and pyproj (Tests/validators/requirements.txt), independently of GeoSpend's code:

- every geometry is a Polygon or MultiPolygon that shapely finds valid (`shapely.is_valid`),
  every exterior ring counter-clockwise (RFC 7946 §3.1.6; `LinearRing.is_ccw`), every position
  within [-180, 180] x [-90, 90], the pieces of a MultiPolygon apart from each other;
- coverage: every expense (lat, lon from the CSV) lies inside exactly one published cell, or
  else on the edge of one or more (exactly at a pole: on the pole's line lat = ±90; on ±180°,
  looked for at both 180 and -180; on an edge two cells share); each cell's `count` is at least
  the expenses inside it and at most those inside or on its edge, and the counts add up to
  the expenses;
- size: each cell's area on the WGS84 ellipsoid (pyproj.Geod) is at most the full cell's
  (s² or 3√3/2·s²) plus 0.1 %; the figures line gives how many cells are within 0.1 % of it
  (cells cut at a region border are smaller).
"""
import csv
import json
import math
import sys

import shapely
from pyproj import Geod
from shapely.geometry import Point, shape


def geometry_problems(features):
    """The features' shapely geometries, and what is wrong with them: not a Polygon or
    MultiPolygon, invalid, a clockwise exterior ring, a hole, a position out of range."""
    problems = []
    geometries = []
    for n, feature in enumerate(features):
        geom = shape(feature["geometry"])
        geometries.append(geom)
        fid = feature.get("id")
        if feature["geometry"]["type"] not in ("Polygon", "MultiPolygon"):
            problems.append(f"{fid}: geometry {feature['geometry']['type']}")
            continue
        if not shapely.is_valid(geom):
            problems.append(f"{fid}: invalid: {shapely.is_valid_reason(geom)}")
        parts = list(geom.geoms) if geom.geom_type == "MultiPolygon" else [geom]
        for part in parts:
            if not part.exterior.is_ccw:
                problems.append(f"{fid}: exterior ring clockwise")
            if part.interiors:
                problems.append(f"{fid}: has holes")
            for lon, lat in part.exterior.coords:
                if not (-180 <= lon <= 180 and -90 <= lat <= 90):
                    problems.append(f"{fid}: position {lon},{lat} out of range")
                    break
    return geometries, problems


def main(expenses_path, layer_path, cell_m, kind):
    doc = json.load(open(layer_path))
    features = doc["features"]
    geometries, problems = geometry_problems(features)

    tree = shapely.STRtree(geometries)
    covered = [0] * len(features)
    contained = [0] * len(features)
    points = 0
    with open(expenses_path, newline="") as f:
        for row in csv.DictReader(f):
            lat, lon = float(row["lat"]), float(row["lon"])
            points += 1
            looks = [Point(lon, lat)]
            if abs(lon) == 180:
                looks.append(Point(-lon, lat))
            inside, hits = set(), set()
            for p in looks:
                inside.update(int(k) for k in tree.query(p, predicate="within"))
                hits.update(int(k) for k in tree.query(p, predicate="covered_by"))
            # Inside one cell, or else on the edge of one or more (a pole, ±180°, an edge shared
            # by two cells): then it counts in exactly one of them, which `count` must show.
            if len(inside) > 1 or not hits or (inside and hits != inside):
                names = [features[k].get("id") for k in sorted(hits)]
                problems.append(f"expense {row['id']} at {lat},{lon} is in {len(inside)} cells, on {len(hits)}: {names}")
            for k in inside:
                contained[k] += 1
            for k in hits:
                covered[k] += 1
    counted = 0
    for k, feature in enumerate(features):
        count = feature["properties"]["count"]
        counted += count
        if not contained[k] <= count <= covered[k]:
            problems.append(f"{feature.get('id')}: count {count}, holds {contained[k]} expenses, {covered[k]} with its edge")
    if counted != points:
        problems.append(f"the cells count {counted} expenses, the file has {points}")

    full = cell_m * cell_m * (3 * math.sqrt(3) / 2 if kind == "hex" else 1)
    geod = Geod(ellps="WGS84")
    ratios = []
    for k, geom in enumerate(geometries):
        area = sum(abs(geod.geometry_area_perimeter(part)[0]) for part in (geom.geoms if geom.geom_type == "MultiPolygon" else [geom]))
        ratios.append(area / full)
        if area > full * 1.001:
            problems.append(f"{features[k].get('id')}: area {area:.1f} m² > the full cell's {full:.1f} m²")
    within = sum(1 for r in ratios if abs(r - 1) <= 0.001)
    if problems:
        print("\n".join(problems[:40]))
        return 1
    worst = max((abs(r - 1) for r in ratios if abs(r - 1) <= 0.001), default=0)
    print(f"ok\ncells {len(features)} expenses {points} full-size {within} (worst {worst:.2e}) cut {len(features) - within}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]))
