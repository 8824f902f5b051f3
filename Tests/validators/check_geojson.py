"""Checks GeoSpend GeoJSON exports with independent readers; prints one JSON report per file.

Usage: check_geojson.py [--allow CRITERION,...] FILE [FILE ...]

--allow names geojson-validator "problematic" criteria the caller expects (a grid written with
--precision 9 has "excessive_coordinate_precision"; a cell at a pole drawn in longitude/latitude
has "excessive_vertices"); "invalid" criteria are never allowed.

For each file: geojson-validator (structure incl. crs, geometry criteria), geojson-pydantic
(strict: no strings for numbers, no NaN), shapely (valid polygons, counter-clockwise exterior
rings, closed), geopandas.read_file (feature count). Exit status 1 when any check failed; the
report says which and why. The Swift tests run this on every layer.
"""
import json
import math
import sys

import geopandas
import shapely
from geojson_pydantic import FeatureCollection
from geojson_validator import validate_geometries, validate_structure
from shapely.geometry import shape


ALLOWED = {"crosses_antimeridian"}


def check(path):
    problems = []
    raw = open(path, "rb").read()
    doc = json.loads(raw, parse_constant=lambda c: problems.append(f"non-finite number {c}"))
    if "crs" in doc:
        problems.append("has a crs member")
    structure = validate_structure(doc, check_crs=True)
    if structure:
        problems.append(f"geojson-validator structure: {structure}")
    geometries = validate_geometries(doc)
    invalid = geometries.get("invalid", {})
    if invalid:
        problems.append(f"geojson-validator invalid geometries: {invalid}")
    problematic = {k: v for k, v in geometries.get("problematic", {}).items() if k not in ALLOWED}
    if problematic:
        problems.append(f"geojson-validator problematic geometries: {problematic}")
    try:
        FeatureCollection.model_validate_json(raw, strict=True)
    except Exception as error:  # noqa: BLE001 - any refusal is a finding
        problems.append(f"geojson-pydantic strict: {str(error)[:500]}")

    types = {}
    for n, feature in enumerate(doc["features"]):
        try:
            check_feature(n, feature, types, problems)
        except Exception as error:  # noqa: BLE001 - a reader choking is a finding
            problems.append(f"feature {n}: {type(error).__name__}: {error}")

    try:
        frame = geopandas.read_file(path)
        if len(frame) != len(doc["features"]):
            problems.append(f"geopandas read {len(frame)} features, the file has {len(doc['features'])}")
        if frame.crs is None or frame.crs.to_epsg() != 4326:
            problems.append(f"geopandas crs is {frame.crs}, expected EPSG:4326")
        rows = len(frame)
    except Exception as error:  # noqa: BLE001
        problems.append(f"geopandas: {error}")
        rows = None
    return {"file": path, "features": len(doc["features"]), "geometry_types": types,
            "geopandas_rows": rows, "problems": problems[:20]}


def check_feature(n, feature, types, problems):
    if "id" not in feature or not isinstance(feature["id"], (str, int)):
        problems.append(f"feature {n}: no string or number id")
    geom = feature["geometry"]
    types[geom["type"]] = types.get(geom["type"], 0) + 1
    for key, value in feature["properties"].items():
        if isinstance(value, float) and not math.isfinite(value):
            problems.append(f"feature {n}: {key} is not finite")
    polygons = []
    if geom["type"] == "Polygon":
        polygons = [geom["coordinates"]]
    elif geom["type"] == "MultiPolygon":
        polygons = geom["coordinates"]
    for rings in polygons:
        exterior = rings[0]
        if exterior[0] != exterior[-1] or len(exterior) < 4:
            problems.append(f"feature {n}: ring not closed or too short")
        for lon, lat in exterior:
            if not (-180 <= lon <= 180 and -90 <= lat <= 90):
                problems.append(f"feature {n}: position {lon},{lat} out of range")
        polygon = shapely.Polygon(exterior)
        if not polygon.is_valid:
            problems.append(f"feature {n}: invalid polygon ({shapely.is_valid_reason(polygon)})")
        if not polygon.exterior.is_ccw:
            problems.append(f"feature {n}: exterior ring is clockwise")
    if geom["type"] == "Point":
        lon, lat = geom["coordinates"]
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            problems.append(f"feature {n}: position {lon},{lat} out of range")
    shape(geom)  # shapely reads every geometry


def main():
    paths = sys.argv[1:]
    if paths and paths[0] == "--allow":
        ALLOWED.update(paths[1].split(","))
        paths = paths[2:]
    reports = [check(p) for p in paths]
    print(json.dumps(reports, indent=1))
    return 1 if any(r["problems"] for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
