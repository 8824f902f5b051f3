#!/usr/bin/env python3
"""Checks the service's vector tiles against a `geospend export tiles` MBTiles file of the same
data and options (written for GeoSpend by helper D, session 12).

Usage:
  check_served_tiles.py MBTILES TILESET_URL TOKEN [QUERY]
  e.g. check_served_tiles.py heat.mbtiles http://127.0.0.1:8080/tiles/heat gs_… max-zoom=12

Written from the specifications, not from GeoSpend's code:
- MBTiles 1.3 (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md): tiles in TMS
  rows (tile_row = 2^z - 1 - y), tile data gzip-compressed, the metadata rows bounds, minzoom,
  maxzoom and the json row's vector_layers;
- TileJSON 3.0.0 (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0): tilejson, tiles
  (URL templates with {z}/{x}/{y}, XYZ: y = 0 at the north), minzoom, maxzoom, bounds,
  vector_layers;
- Mapbox Vector Tile 2.1, decoded by PyPI mapbox-vector-tile (pinned in requirements.txt).

For every tile of the file, GET TILESET_URL/z/x/y.mvt?QUERY with `Authorization: Bearer TOKEN`
must answer 200, Content-Type application/vnd.mapbox-vector-tile, the file's tile bytes
(gunzipped) exactly, and decode to the same layers. Each tile's four neighbours that the file
does not hold must answer 204 with no body (an empty tile). TILESET_URL.json must be a TileJSON
3.0.0 document whose template is TILESET_URL/{z}/{x}/{y}.mvt?QUERY and whose zooms, bounds and
vector_layers are the file's. GDAL's MVT driver (ogrinfo, Debian) must read the busiest tile of
the highest zoom over HTTP, the token in GDAL_HTTP_HEADERS, and count its features as decoded.
Prints "ok: N tiles, M empty" or exits non-zero with the first difference.
"""
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

import mapbox_vector_tile


def fail(message):
    sys.exit("check_served_tiles: " + message)


def get(url, token):
    """(status, content type, body) of a GET with the bearer token."""
    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def main():
    if len(sys.argv) not in (4, 5):
        fail(__doc__)
    path, base, token = sys.argv[1:4]
    query = "?" + sys.argv[4] if len(sys.argv) == 5 and sys.argv[4] else ""
    db = sqlite3.connect(path)
    metadata = dict(db.execute("SELECT name, value FROM metadata"))
    tiles = {}
    for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        tiles[(z, x, (1 << z) - 1 - row)] = gzip.decompress(data)
    if not tiles:
        fail(path + " holds no tiles: nothing would be compared")

    for (z, x, y), expected in sorted(tiles.items()):
        url = f"{base}/{z}/{x}/{y}.mvt{query}"
        status, kind, body = get(url, token)
        if status != 200 or kind != "application/vnd.mapbox-vector-tile":
            fail(f"{url}: {status} {kind} {body[:300]!r}")
        if body != expected:
            fail(f"{url}: {len(body)} bytes, the file's tile has {len(expected)}; they differ")
        if mapbox_vector_tile.decode(body) != mapbox_vector_tile.decode(expected):
            fail(f"{url}: decodes differently from the file's tile")

    empty = 0
    for (z, x, y) in sorted(tiles):
        n = 1 << z
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            t = (z, x + dx, y + dy)
            if t in tiles or not (0 <= t[1] < n and 0 <= t[2] < n):
                continue
            url = f"{base}/{t[0]}/{t[1]}/{t[2]}.mvt{query}"
            status, _, body = get(url, token)
            if status != 204 or body:
                fail(f"{url}: the file holds no such tile, the service answered {status} with {len(body)} bytes")
            empty += 1

    status, kind, body = get(base + ".json" + query, token)
    if status != 200 or not (kind or "").startswith("application/json"):
        fail(f"{base}.json: {status} {kind} {body[:300]!r}")
    doc = json.loads(body)
    want_template = f"{base}/{{z}}/{{x}}/{{y}}.mvt{query}"
    checks = [
        ("tilejson", doc.get("tilejson"), "3.0.0"),
        ("tiles", doc.get("tiles"), [want_template]),
        ("minzoom", doc.get("minzoom"), int(metadata["minzoom"])),
        ("maxzoom", doc.get("maxzoom"), int(metadata["maxzoom"])),
        ("bounds", [f"{v:.6f}" for v in doc.get("bounds", [])], [f"{float(v):.6f}" for v in metadata["bounds"].split(",")]),
        ("vector_layers", doc.get("vector_layers"), json.loads(metadata["json"])["vector_layers"]),
    ]
    for name, got, want in checks:
        if got != want:
            fail(f"TileJSON {name}: {got!r}, the file says {want!r}")

    top = max(z for z, _, _ in tiles)
    busiest = max((t for t in tiles if t[0] == top),
                  key=lambda t: sum(len(l["features"]) for l in mapbox_vector_tile.decode(tiles[t]).values()))
    decoded = mapbox_vector_tile.decode(tiles[busiest])
    env = dict(os.environ, GDAL_HTTP_HEADERS="Authorization: Bearer " + token)
    url = f"MVT:{base}/{busiest[0]}/{busiest[1]}/{busiest[2]}.mvt{query}"
    info = subprocess.run(["ogrinfo", "-ro", "-al", "-so", url], capture_output=True, text=True, env=env)
    for layer, content in decoded.items():
        m = re.search(rf"Layer name: {layer}\n(?:.*\n)*?Feature Count: (\d+)", info.stdout)
        if info.returncode != 0 or not m or int(m.group(1)) != len(content["features"]):
            fail(f"ogrinfo {url}: layer {layer} should count {len(content['features'])} features: {info.stdout} {info.stderr}")

    print(f"ok: {len(tiles)} tiles, {empty} empty")


if __name__ == "__main__":
    main()
