#!/usr/bin/env python3
"""Checks a `geospend export tiles` MBTiles file (written for GeoSpend by helper T, session 11).

Usage:
  check_tiles.py heat   EXPENSES_CSV MBTILES MIN_ZOOM MAX_ZOOM MIN_COUNT MIN_USERS
  check_tiles.py points EXPENSES_CSV MBTILES MIN_ZOOM MAX_ZOOM USER|-
  check_tiles.py places PLACES_GEOJSON MBTILES MIN_ZOOM MAX_ZOOM

Written from the specifications, not from GeoSpend's code:
- MBTiles 1.3 (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md): the metadata rows,
  tile_row = 2^z - 1 - y (TMS), tile data deflated (gzip here);
- Mapbox Vector Tile 2.1 (https://github.com/mapbox/vector-tile-spec/tree/master/2.1), decoded by
  PyPI mapbox-vector-tile (pinned in requirements.txt), y down, extent 4096;
- Web Mercator tile numbers as the OpenStreetMap wiki gives them
  (https://wiki.openstreetmap.org/wiki/Slippy_map_tilenames): x = (lon + 180) / 360 * 2^z,
  y = (1 - asinh(tan(lat)) / pi) / 2 * 2^z, latitudes clamped to +-85.0511287798.
- The heat rule as docs/TILES.md states it: cells are quadtree tiles of zoom z + 6; at MAX_ZOOM + 6
  a cell is hidden with fewer than MIN_COUNT expenses or MIN_USERS users, and when the hidden cells
  together fall short of either, the smallest published cell (fewest expenses, then smallest
  total, then north to south, west to east) is hidden too; a coarser cell publishes the sum of the
  published finest cells under it, nothing else.

Expenses: the CSV's EUR rows of kind "expense" with a position. Every tile must be <= 500,000
bytes decompressed. GDAL (ogrinfo, MBTiles/MVT drivers) must open the file and count, at each
zoom, the features this script decoded. Prints "ok" or fails with the first difference.
"""
import csv
import gzip
import json
import math
import re
import sqlite3
import subprocess
import sys
from decimal import Decimal

import mapbox_vector_tile

MAX_LAT = 85.0511287798
EXTENT = 4096
CELL_LEVELS = 6


def fail(message):
    sys.exit("check_tiles: " + message)


def unit(lat, lon):
    lat = max(-MAX_LAT, min(MAX_LAT, lat))
    return (lon + 180) / 360, (1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2


def cell(lat, lon, level):
    u, v = unit(lat, lon)
    n = 2 ** level
    return min(n - 1, max(0, math.floor(u * n))), min(n - 1, max(0, math.floor(v * n)))


def read_tiles(path, min_zoom, max_zoom):
    """{(z, x, y): decoded layers}, with the checks every tile set must pass."""
    db = sqlite3.connect(path)
    meta = dict(db.execute("SELECT name, value FROM metadata"))
    for key in ("name", "format", "bounds", "center", "minzoom", "maxzoom", "json"):
        if key not in meta:
            fail(f"metadata has no {key!r} row")
    if meta["format"] != "pbf" or int(meta["minzoom"]) != min_zoom or int(meta["maxzoom"]) != max_zoom:
        fail(f"metadata format/minzoom/maxzoom: {meta}")
    layers = json.loads(meta["json"])["vector_layers"]
    tiles = {}
    for z, col, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        if data[:2] != b"\x1f\x8b":
            fail(f"tile {z}/{col}/{row} is not gzip-compressed")
        raw = gzip.decompress(data)
        y = 2 ** z - 1 - row
        if len(raw) > 500_000:
            fail(f"tile {z}/{col}/{y} is {len(raw)} bytes")
        if not min_zoom <= z <= max_zoom:
            fail(f"tile {z}/{col}/{y} outside the zooms")
        tiles[(z, col, y)] = mapbox_vector_tile.decode(raw, default_options={"y_coord_down": True})
    return tiles, layers


def features(tiles, name, z):
    for (tz, x, y), decoded in sorted(tiles.items()):
        if tz != z:
            continue
        layer = decoded.get(name)
        if layer is None:
            fail(f"tile {tz}/{x}/{y} has no {name!r} layer")
        if layer["extent"] != EXTENT or layer["version"] != 2:
            fail(f"tile {tz}/{x}/{y}: extent {layer['extent']}, version {layer['version']}")
        for f in layer["features"]:
            yield (x, y), f


def gdal_counts(path, name, min_zoom, max_zoom):
    """Feature counts GDAL's MBTiles driver reads at each zoom (open option ZOOM_LEVEL)."""
    counts = {}
    for z in range(min_zoom, max_zoom + 1):
        out = subprocess.run(
            ["ogrinfo", "-ro", "-al", "-so", "-oo", f"ZOOM_LEVEL={z}", path], capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"ogrinfo cannot open {path} at zoom {z}: {out.stderr}")
        if f"Layer name: {name}" not in out.stdout:
            counts[z] = 0  # no tile at this zoom: GDAL lists no layer
            continue
        m = re.search(r"Feature Count: (\d+)", out.stdout)
        counts[z] = int(m.group(1)) if m else None
    return counts


def expenses(path, user=None):
    rows = []
    for r in csv.DictReader(open(path)):
        if r["currency"] != "EUR" or r["kind"] != "expense" or not r["lat"]:
            continue
        if user and r["user"] != user:
            continue
        rows.append((r["id"], r["user"], float(r["lat"]), float(r["lon"]), int(Decimal(r["amount"]) * 100)))
    return rows


def expected_heat(rows, max_zoom, min_count, min_users):
    level = max_zoom + CELL_LEVELS
    cells = {}
    for _, user, lat, lon, cents in rows:
        c = cells.setdefault(cell(lat, lon, level), [0, 0, set()])
        c[0] += 1
        c[1] += cents
        c[2].add(user)
    hidden = {k for k, (n, _, users) in cells.items() if n < min_count or len(users) < min_users}
    if hidden:
        n = sum(cells[k][0] for k in hidden)
        users = set().union(*(cells[k][2] for k in hidden))
        shown = [k for k in cells if k not in hidden]
        if (n < min_count or len(users) < min_users) and shown:
            hidden.add(min(shown, key=lambda k: (cells[k][0], cells[k][1], k[1], k[0])))
    return {k: (v[0], v[1]) for k, v in cells.items() if k not in hidden}, len(hidden), level


def check_heat(csv_path, path, min_zoom, max_zoom, min_count, min_users):
    tiles, _ = read_tiles(path, min_zoom, max_zoom)
    published, hidden, finest = expected_heat(expenses(csv_path), max_zoom, min_count, min_users)
    side = EXTENT >> CELL_LEVELS
    by_zoom = {}
    for z in range(min_zoom, max_zoom + 1):
        shift, level = max_zoom - z, z + CELL_LEVELS
        want = {}
        for (x, y), (n, cents) in published.items():
            w = want.setdefault((x >> shift, y >> shift), [0, 0])
            w[0] += n
            w[1] += cents
        got = {}
        for (tx, ty), f in features(tiles, "heat", z):
            p = f["properties"]
            lv, x, y = map(int, p["cell"].split("/"))
            if lv != level or (x >> CELL_LEVELS, y >> CELL_LEVELS) != (tx, ty) or (x, y) in got:
                fail(f"zoom {z}: cell {p['cell']} in tile {tx}/{ty} (or twice)")
            if p["count"] < min_count:
                fail(f"zoom {z}: cell {p['cell']} published with {p['count']} expenses")
            ring = f["geometry"]["coordinates"][0]
            x0, y0 = (x % 64) * side, (y % 64) * side
            if sorted(map(tuple, ring[:4])) != sorted([(x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side)]):
                fail(f"zoom {z}: cell {p['cell']} drawn as {ring}")
            got[(x, y)] = [p["count"], p["total_minor"]]
            if abs(p["total"] - p["total_minor"] / 100) > 1e-9:
                fail(f"zoom {z}: cell {p['cell']} total {p['total']} vs {p['total_minor']} cents")
        if got != want:
            diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
            fail(f"zoom {z}: published cells differ from the expenses binned here: {dict(list(diff.items())[:5])}")
        by_zoom[z] = got
    # Parent minus its published children is 0 at every zoom: a hidden cell adds nothing anywhere.
    for z in range(min_zoom, max_zoom):
        for (x, y), (n, cents) in by_zoom[z].items():
            kids = [by_zoom[z + 1].get((2 * x + i, 2 * y + j), [0, 0]) for i in (0, 1) for j in (0, 1)]
            if n != sum(k[0] for k in kids) or cents != sum(k[1] for k in kids):
                fail(f"zoom {z}: cell {x}/{y} is not the sum of its published children")
    totals = {z: sum(c[1] for c in by_zoom[z].values()) for z in by_zoom}
    if len(set(totals.values())) > 1:
        fail(f"per-zoom totals differ: {totals}")
    check_gdal(path, "heat", min_zoom, max_zoom, {z: len(by_zoom[z]) for z in by_zoom})
    print(json.dumps({"ok": True, "hidden_finest_cells": hidden, "total_minor": totals[max_zoom],
                      "cells": {z: len(by_zoom[z]) for z in by_zoom}}))


def check_point_layer(path, name, key, expected, min_zoom, max_zoom, same):
    """Every expected item once per zoom, in the tile holding it, within one tile unit of its
    position; `expected` maps the `key` property to (lat, lon, anything `same` compares)."""
    tiles, _ = read_tiles(path, min_zoom, max_zoom)
    counts = {}
    for z in range(min_zoom, max_zoom + 1):
        seen = set()
        for (tx, ty), f in features(tiles, name, z):
            pid = f["properties"][key]
            if pid not in expected or pid in seen:
                fail(f"zoom {z}: {name} {pid} unknown or twice")
            seen.add(pid)
            lat, lon, want = expected[pid]
            if not same(f["properties"], want) or cell(lat, lon, z) != (tx, ty):
                fail(f"zoom {z}: {name} {pid} in tile {tx}/{ty} with {f['properties']}")
            u, v = unit(lat, lon)
            px, py = (u * 2 ** z - tx) * EXTENT, (v * 2 ** z - ty) * EXTENT
            gx, gy = f["geometry"]["coordinates"]
            if abs(gx - px) > 1 or abs(gy - py) > 1:
                fail(f"zoom {z}: {name} {pid} at {gx},{gy}, expected {px:.2f},{py:.2f} (tile units)")
        if seen != set(expected):
            fail(f"zoom {z}: {len(seen)} {name}, expected {len(expected)}")
        counts[z] = len(seen)
    check_gdal(path, name, min_zoom, max_zoom, counts)
    print(json.dumps({"ok": True, name: len(expected)}))


def check_points(csv_path, path, min_zoom, max_zoom, user):
    rows = {r[0]: (r[2], r[3], r[4]) for r in expenses(csv_path, None if user == "-" else user)}
    # One user's points say where each position came from (the generated rows all carry
    # theirs: device); a layer across users never does.
    source = (lambda p: p.get("position_source") == "device") if user != "-" else (lambda p: "position_source" not in p)
    check_point_layer(path, "points", "id", rows, min_zoom, max_zoom, lambda p, cents: p["amount_minor"] == cents and source(p))


def check_places(places_path, path, min_zoom, max_zoom):
    places = {}
    for f in json.load(open(places_path))["features"]:
        lon, lat = f["geometry"]["coordinates"]
        places[f["properties"]["place_id"]] = (lat, lon, f["properties"]["count"])
    check_point_layer(path, "places", "place_id", places, min_zoom, max_zoom, lambda p, count: p["count"] == count)


def check_gdal(path, name, min_zoom, max_zoom, want):
    got = gdal_counts(path, name, min_zoom, max_zoom)
    if got != want:
        fail(f"GDAL's feature counts per zoom {got} differ from the decoded ones {want}")


if __name__ == "__main__":
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "heat":
        check_heat(args[0], args[1], *map(int, args[2:6]))
    elif kind == "points":
        check_points(args[0], args[1], int(args[2]), int(args[3]), args[4])
    elif kind == "places":
        check_places(args[0], args[1], int(args[2]), int(args[3]))
    else:
        fail(f"unknown kind {kind}")
