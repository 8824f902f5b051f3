#!/usr/bin/env python3
"""Writes PyPI h3's answers for seeded random inputs, for Tests/GeoSpendTests/H3OracleTests.swift.

Usage: oracle.py SEED POINTS_PER_BAND OUT
Per resolution band (0–4, 5–9, 10–15), POINTS_PER_BAND positions: 70 % uniform on the sphere,
10 % near the poles (and the poles themselves), 10 % near ±180° (and on it), 10 % near the 12
resolution-0 pentagons. Lines (space-separated; degrees with repr precision):
  P lat lng res cell centre_lat centre_lng parent_res parent
  B cell n lat1 lng1 … (boundary, for every 10th point and every pentagon at every resolution)
  C cell res child… (children, for some cells)
  D cell k cell… (grid disk, for some cells and every pentagon)
"""
import math
import random
import sys

import h3

seed, per_band, out_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
pentagon_centres = [h3.cell_to_latlng(p) for p in h3.get_pentagons(0)]


def uniform():
    z = rng.uniform(-1, 1)
    return math.degrees(math.asin(z)), rng.uniform(-180, 180)


def near(lat, lng, spread):
    lat2 = max(-90.0, min(90.0, lat + rng.uniform(-spread, spread)))
    lng2 = lng + rng.uniform(-spread, spread) / max(0.01, math.cos(math.radians(lat2)))
    lng2 = (lng2 + 180) % 360 - 180
    return lat2, lng2


def position(res):
    kind = rng.random()
    spread = 3.0 * 0.38 ** res + 1e-6  # a few cells across at this resolution
    if kind < 0.7:
        return uniform()
    if kind < 0.8:
        if rng.random() < 0.05:
            return rng.choice([90.0, -90.0]), rng.uniform(-180, 180)
        return near(rng.choice([90.0, -90.0]), rng.uniform(-180, 180), spread)
    if kind < 0.9:
        if rng.random() < 0.1:
            return uniform()[0], rng.choice([180.0, -180.0])
        lat, lng = near(uniform()[0], 180.0, spread)
        return lat, lng
    lat, lng = rng.choice(pentagon_centres)
    return near(lat, lng, spread)


def fmt(x):
    return repr(float(x))


with open(out_path, "w") as out:
    disks = 0
    for band in (range(0, 5), range(5, 10), range(10, 16)):
        for n in range(per_band):
            res = rng.choice(band)
            lat, lng = position(res)
            cell = h3.latlng_to_cell(lat, lng, res)
            clat, clng = h3.cell_to_latlng(cell)
            pres = rng.randint(0, res)
            out.write("P %s %s %d %s %s %s %d %s\n" % (fmt(lat), fmt(lng), res, cell, fmt(clat), fmt(clng), pres,
                                                      h3.cell_to_parent(cell, pres)))
            if n % 10 == 0:
                b = h3.cell_to_boundary(cell)
                out.write("B %s %d %s\n" % (cell, len(b), " ".join(fmt(x) for v in b for x in v)))
            if n % 500 == 0:
                cres = min(15, res + rng.randint(0, 2))
                out.write("C %s %d %s\n" % (cell, cres, " ".join(sorted(h3.cell_to_children(cell, cres)))))
            if n % 100 == 0:
                k = rng.randint(1, 3)
                out.write("D %s %d %s\n" % (cell, k, " ".join(sorted(h3.grid_disk(cell, k)))))
    for res in range(16):
        for p in h3.get_pentagons(res):
            b = h3.cell_to_boundary(p)
            out.write("B %s %d %s\n" % (p, len(b), " ".join(fmt(x) for v in b for x in v)))
            out.write("D %s %d %s\n" % (p, 2, " ".join(sorted(h3.grid_disk(p, 2)))))
            out.write("C %s %d %s\n" % (p, min(15, res + 2), " ".join(sorted(h3.cell_to_children(p, min(15, res + 2))))))
            for q in h3.grid_disk(p, 1):
                b = h3.cell_to_boundary(q)
                out.write("B %s %d %s\n" % (q, len(b), " ".join(fmt(x) for v in b for x in v)))
