#!/usr/bin/env bash
# The main job on the embedded default: build demo.sqlite from Data/ and take a short tour.
set -euo pipefail
geospend=${1:-.build/debug/geospend}
db=demo.sqlite
rm -f "$db" "$db-wal" "$db-shm"
export GEOSPEND_DB=$db

echo "== Importing Data/ into $db"
"$geospend" import stores Data/helsinki-places.geojson
"$geospend" import expenses Data/sample-expenses.csv
echo
"$geospend" info
echo
echo "== user1's expenses within 300 m of Helsinki Central Station (60.1710, 24.9414)"
"$geospend" near --user user1 --lat 60.1710 --lon 24.9414 --radius 300m
echo
echo "== The 5 nearest cafés to the station"
"$geospend" nearest-stores --lat 60.1710 --lon 24.9414 -k 5 --kind amenity:cafe
echo
echo "== Map layers: everyone's spending on a 250 m hex grid, and user1's map page"
"$geospend" export grid --all-users --shape hex --cell 250m --out demo-hex.geojson
"$geospend" export bundle --user user1 --out demo-map
echo
echo "Open $db in QGIS or run: ogrinfo $db   (layers: expenses, stores)"
echo "Open demo-hex.geojson in QGIS, kepler.gl or geojson.io; open demo-map/index.html in a browser."
