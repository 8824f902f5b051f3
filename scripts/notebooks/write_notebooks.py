"""Writes the source cells of Notebooks/*.ipynb (outputs come from `make notebooks`).

The notebooks are the product; this script is how their cells were authored, kept so a change
to a story is a reviewable diff. Re-run it only to rewrite the cells (it drops outputs), then
`make notebooks` to execute them again.
"""
import pathlib

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = pathlib.Path(__file__).resolve().parents[2] / "Notebooks"

SETUP = """\
import math
import pandas as pd
import matplotlib.pyplot as plt
from geospend_cli import demo_database, export, geospend, geospend_json

demo_database()
pd.set_option("display.width", 120)"""


def notebook(cells):
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


spending_near = notebook([
    new_markdown_cell("""\
# Spending near a place

*What did user1 spend around Helsinki Central Station?* Three circles — 100 m, 300 m and 1 km — each
answered by `geospend near` (WGS84 geodesic distances, Karney's algorithm), with totals per
currency exactly as geospend reports them, a map of the expenses coloured by distance, and the
stores nearest to the station (`geospend nearest-stores`).

Data: `make demo`'s database (`scripts/demo-database.sh`): the OpenStreetMap places of `Data/`
(© OpenStreetMap contributors, ODbL) and 12,000 generated expenses of 40 users."""),
    new_code_cell(SETUP + """
station = (60.1710, 24.9414)  # Helsinki Central Station (lat, lon)"""),
    new_markdown_cell("## Totals per currency within each radius"),
    new_code_cell("""\
results = {r: geospend_json("near", "--user", "user1", "--lat", station[0], "--lon", station[1], "--radius", f"{r}m")
           for r in (100, 300, 1000)}
rows = [{"radius_m": r, "currency": t["currency"], "expenses": t["count"], "total": t["total"], "average": t["average"]}
        for r, res in results.items() for t in res["totals"]]
pd.DataFrame(rows)"""),
    new_markdown_cell("""\
## On a map

Every expense within 1 km, coloured by its geodesic distance from the station (as `near` computed
it), with the three circles. The circles are drawn for display with `pyproj.Geod` — no figure
above depends on them."""),
    new_code_cell("""\
from pyproj import Geod

expenses = pd.DataFrame(results[1000]["expenses"])
fig, ax = plt.subplots(figsize=(7, 7))
points = ax.scatter(expenses.lon, expenses.lat, c=expenses.distance_m, cmap="viridis", s=18, edgecolor="k", linewidth=0.3)
geod = Geod(ellps="WGS84")
for r in (100, 300, 1000):
    lons, lats, _ = geod.fwd([station[1]] * 181, [station[0]] * 181, list(range(0, 362, 2)), [r] * 181)
    ax.plot(lons, lats, lw=1, color="tab:red")
    ax.annotate(f"{r} m", (lons[0], lats[0]), color="tab:red", fontsize=8)
ax.plot(station[1], station[0], marker="*", color="tab:red", markersize=14)
ax.set_aspect(1 / math.cos(math.radians(station[0])))  # metres east and north at the same scale
ax.set_xlabel("longitude"); ax.set_ylabel("latitude")
fig.colorbar(points, ax=ax, shrink=0.7, label="distance from the station (m)")
ax.set_title(f"user1: {len(expenses)} expenses within 1 km")
plt.show()"""),
    new_markdown_cell("## The nearest stores"),
    new_code_cell("""\
nearest = geospend_json("nearest-stores", "--lat", station[0], "--lon", station[1], "-k", 5)
pd.DataFrame(nearest["stores"])[["name", "kind", "street", "distance_m"]]"""),
])

heat_maps = notebook([
    new_markdown_cell("""\
# Heat-map layers

Everyone's spending on grids in **metres** (`geospend export grid`: a Lambert azimuthal
equal-area projection, so every cell covers the same ground), hexagons and squares at two cell
sizes, and a quartic-kernel density surface (`geospend export density`), with user1's places on
top. Cells with fewer than 3 distinct users are suppressed (the default for `--all-users`).
The four grids share one colour scale — spending per km² (a cell's total over its ground area),
so 250 m and 500 m cells, hexagons and squares, are read on the same colours.
Then the same demo database is opened directly with `geopandas.read_file` — it is a standard
SpatiaLite file — and its totals are compared with the export."""),
    new_code_cell(SETUP + """
import json
import geopandas as gpd"""),
    new_code_cell("""\
layers = {}
for shape in ("hex", "square"):
    for cell in (250, 500):
        layers[f"{shape} {cell} m"] = gpd.read_file(export("grid", f"{shape}-{cell}", "--all-users", "--shape", shape,
                                                         "--cell", f"{cell}m", "--currency", "EUR"))
places = gpd.read_file(export("places", "places-user1", "--user", "user1", "--currency", "EUR"))
pd.DataFrame([{"layer": name, "cells": len(df), "expenses": int(df["count"].sum()), "total EUR": round(df["total"].sum(), 2)}
              for name, df in layers.items()])"""),
    new_code_cell("""\
from matplotlib.colors import Normalize

# Every cell of a grid has the same ground area (equal-area projection): a hexagon of edge a
# covers 3√3/2·a², a square of side a, a².
def per_km2(df, shape, cell):
    area_km2 = (3 * math.sqrt(3) / 2 if shape == "hex" else 1) * cell ** 2 / 1e6
    return df["total"] / area_km2

for name, df in layers.items():
    shape, cell = name.split()[0], int(name.split()[1])
    df["EUR per km²"] = per_km2(df, shape, cell)
norm = Normalize(vmin=0, vmax=max(df["EUR per km²"].max() for df in layers.values()))  # one scale for all four
fig, axes = plt.subplots(2, 2, figsize=(11, 10))
for ax, (name, df) in zip(axes.flat, layers.items()):
    df.plot(column="EUR per km²", cmap="YlOrRd", norm=norm, edgecolor="grey", linewidth=0.3, ax=ax)
    places.plot(ax=ax, color="tab:blue", markersize=places["count"] * 3, alpha=0.7)
    ax.set_title(name)
    ax.set_aspect(1 / math.cos(math.radians(60.17)))
    ax.set_axis_off()
fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap="YlOrRd"), ax=axes, shrink=0.6, label="EUR per km² (all four panels)")
fig.suptitle("Everyone's spending per km², user1's places in blue")
plt.show()"""),
    new_markdown_cell("## Density surface (quartic kernel, 300 m bandwidth, 50 m cells)"),
    new_code_cell("""\
density = gpd.read_file(export("density", "density", "--all-users", "--bandwidth", "300m", "--cell", "50m", "--currency", "EUR"))
ax = density.plot(column="density", cmap="magma_r", linewidth=0, legend=True, figsize=(8, 7),
                  legend_kwds={"shrink": 0.6, "label": "EUR per km²"})
places.plot(ax=ax, color="tab:blue", markersize=8)
ax.set_aspect(1 / math.cos(math.radians(60.17)))
ax.set_axis_off()
ax.set_title(f"Spending density: {len(density)} cells")
plt.show()"""),
    new_markdown_cell("""\
## The database itself, read by GDAL

`geopandas.read_file` opens the SpatiaLite file directly (layer `expenses`, a registered POINT
geometry column). Summing its EUR expenses by hand must give the total of the export's cells
plus what suppression left out; with `--min-users 1` nothing is left out and the two agree to the
cent."""),
    new_code_cell("""\
from geospend_cli import DB

table = gpd.read_file(DB, layer="expenses", columns=["id", "user_id", "kind", "amount_minor", "currency"])
eur = table[(table.currency == "EUR") & (table.kind == "expense") & ~table.geometry.is_empty & table.geometry.notna()]
unsuppressed = json.loads(export("grid", "hex-250-all", "--all-users", "--cell", "250m", "--currency", "EUR",
                                 "--min-users", "1").read_text())
exported = unsuppressed["geospend"]
print(f"SpatiaLite file: {len(eur)} geotagged EUR expenses, total {eur.amount_minor.sum() / 100:.2f} EUR ({table.crs})")
print(f"hex export:      {exported['expenses']} expenses in {exported['features']} cells, total {exported['total']:.2f} EUR")
assert len(eur) == exported["expenses"] and eur.amount_minor.sum() == round(exported["total"] * 100)"""),
])

store_insights = notebook([
    new_markdown_cell("""\
# Store insights

Where does user1's money go, and how does one store do across all its customers? Location
insights (`geospend insights`: stores and clusters of nearby expenses, totals, averages, medians,
visits, change against the previous window of equal length) and a store report
(`geospend report store`: monthly series, weekday × hour table, small counts suppressed)."""),
    new_code_cell(SETUP),
    new_markdown_cell("## user1's top places, March–May 2025, against December–February"),
    new_code_cell("""\
insights = geospend_json("insights", "--user", "user1", "--from", "2025-03-01", "--to", "2025-05-31")
eur = [p for p in insights["places"] if p["currency"] == "EUR"][:10]
top = pd.DataFrame([{
    "place": p["place"]["name"] or p["place"]["id"], "kind": p["place"]["type"], "visits": p["count"],
    "total": float(p["total"]), "average": float(p["average"]), "median": float(p["median"]),
    "previous": float(p["change"]["previous_total"]) if p["change"] else None} for p in eur])
print("window", insights["window"])
top"""),
    new_code_cell("""\
fig, ax = plt.subplots(figsize=(9, 5))
y = range(len(top))[::-1]
ax.barh([v + 0.2 for v in y], top.total, height=0.4, label="Mar–May 2025", color="tab:red")
ax.barh([v - 0.2 for v in y], top.previous.fillna(0), height=0.4, label="previous window", color="tab:grey")
ax.set_yticks(list(y), top.place)
ax.set_xlabel("EUR")
ax.legend()
ax.set_title("user1: top places and the change against the previous window")
plt.tight_layout()
plt.show()"""),
    new_markdown_cell("""\
## One store across all its customers

The store with the highest total among those that at least 3 users visited (`report stores`, the
default `--min-users 3`) and whose report publishes a month, then its report. Cells behind fewer
than 3 users are suppressed (shown empty), and so is the smallest published one when the
suppressed ones together come from fewer than 3 users. In the demo data S-Market Sokos Helsinki is
every user's favourite (`generate --popular`), so every month and every hour it is open publish."""),
    new_code_cell("""\
stores = geospend_json("report", "stores")  # only stores with 3+ users, by total
report, euro = None, None
for listed in stores["stores"]:  # the busiest whose report publishes a month
    candidate = geospend_json("report", "store", listed["id"])
    euro = next((c for c in candidate["currencies"] if c["currency"] == "EUR"), None)
    if euro and euro["monthly"]:
        report = candidate
        break
assert report is not None, "no store in the demo data publishes a month"
print(report["store"]["name"] or report["store"]["id"], report["store"]["kind"], "—", euro["visitors"], "customers,",
      euro["count"], "expenses, total", euro["total"], "EUR, average ticket", euro["average_ticket"], "EUR")
monthly = pd.DataFrame(euro["monthly"]).rename(columns={"key": "month"})
monthly["total"] = monthly["total"].astype(float)
ax = monthly.plot.bar(x="month", y="total", legend=False, figsize=(9, 3.5), color="tab:red")
ax.set_ylabel("EUR")
ax.set_title("Monthly total (empty: suppressed or no expenses)")
plt.tight_layout()
plt.show()"""),
    new_code_cell("""\
days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
table = pd.DataFrame(euro["weekday_hour"], index=days).map(lambda cell: cell if cell is not None else 0)
table = table.loc[:, (table != 0).any()]  # hours with any published cell
table.style.set_uuid("weekday-hour").background_gradient(cmap="YlOrRd").set_caption("Expenses per weekday and local hour (suppressed cells as 0)")"""),
])

for name, nb in [("01-spending-near-a-place", spending_near), ("02-heat-map-layers", heat_maps),
                 ("03-store-insights", store_insights)]:
    nbformat.write(nb, HERE / f"{name}.ipynb")
    print("wrote", HERE / f"{name}.ipynb")
