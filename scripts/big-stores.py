#!/usr/bin/env python3
"""Writes a large GeoJSON store file for timing `geospend import stores`: the features of
Data/helsinki-places.geojson repeated with new unique ids (and osm_ids) and coordinates
shifted a little per copy, in the same compact layout.

    scripts/big-stores.py OUT.geojson [MEGABYTES]     (default 150)
"""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
target = int(float(sys.argv[2]) * 1_000_000) if len(sys.argv) > 2 else 150_000_000
source = Path(__file__).resolve().parent.parent / "Data" / "helsinki-places.geojson"
features = json.loads(source.read_text(encoding="utf-8"))["features"]

written = 0
copy = 0
with out.open("w", encoding="utf-8") as f:
    head = '{"type":"FeatureCollection","features":['
    f.write(head)
    written += len(head)
    first = True
    while written < target:
        for feature in features:
            # A copy: ids moved into a range of their own, the point moved ~1 m east/north.
            new = json.loads(json.dumps(feature))
            new["id"] = copy * 10_000_000_000 + feature["id"]
            if "osm_id" in new["properties"]:
                new["properties"]["osm_id"] = new["id"]
            lon, lat = new["geometry"]["coordinates"][:2]
            new["geometry"]["coordinates"] = [round(lon + copy * 1e-5, 7), round(lat + copy * 1e-5, 7)]
            text = ("" if first else ",") + json.dumps(new, ensure_ascii=False, separators=(",", ":"))
            first = False
            f.write(text)
            written += len(text.encode("utf-8"))
        copy += 1
    f.write("]}")
print(f"{out}: {written + 2} bytes, {copy * len(features)} features", file=sys.stderr)
