#!/usr/bin/env bash
# The main job on the embedded default: build demo.sqlite (scripts/demo-database.sh: Helsinki's
# OpenStreetMap places and 12,000 generated expenses of 40 users) and take a short tour.
set -euo pipefail
geospend=${1:-.build/debug/geospend}
db=demo.sqlite
export GEOSPEND_DB=$db

echo "== Building $db: Data/helsinki-places.geojson and generated expenses (scripts/demo-database.sh)"
scripts/demo-database.sh "$geospend" "$db" > /dev/null
"$geospend" info
echo
echo "== user1's expenses within 300 m of Helsinki Central Station (60.1710, 24.9414)"
"$geospend" near --user user1 --lat 60.1710 --lon 24.9414 --radius 300m
echo
echo "== The 5 nearest cafés to the station"
"$geospend" nearest-stores --lat 60.1710 --lon 24.9414 -k 5 --kind amenity:cafe
echo
echo "== Cafés within 500 m of the station, across users (stores 3+ users visited)"
"$geospend" report stores --near 60.1710,24.9414 --radius 500m --kind amenity:cafe | sed -n 1,8p
echo "   …"
echo
echo "== Map layers: everyone's spending on a 250 m hex grid, user1's map page, a store report"
"$geospend" export grid --all-users --shape hex --cell 250m --out demo-hex.geojson
"$geospend" export bundle --user user1 --out demo-map
"$geospend" report store 288130404 --format html > demo-store.html
echo
echo "== Maija's bank money on the map: an OFX statement without a single coordinate and her phone's"
echo "   Timeline export (Data/examples/demo-person), three commands"
"$geospend" import expenses Data/examples/demo-person/statement.ofx --preset ofx --user maija
"$geospend" import positions Data/examples/demo-person/Timeline.json --user maija
"$geospend" geotag --user maija --timezone Europe/Helsinki | tail -n 1
"$geospend" export bundle --user maija --out demo-maija
echo
echo "Open $db in QGIS or run: ogrinfo $db   (layers: expenses, stores)"
echo "Open demo-hex.geojson in QGIS, kepler.gl or geojson.io; open demo-map/index.html and"
echo "demo-store.html (S-Market Sokos Helsinki, every user's favourite) in a browser;"
echo "demo-maija/index.html is Maija's statement, placed."
