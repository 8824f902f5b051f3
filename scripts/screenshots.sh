#!/usr/bin/env bash
# Regenerates the README's screenshots from make demo's data: builds the demo database
# (scripts/demo-database.sh), exports user1's map bundle and S-Market Sokos Helsinki's HTML store
# report, and has headless Chromium (offline, no basemap) take docs/map-bundle.png,
# docs/store-report.png and docs/geotagged-statement.png (make demo's person, geotagged). Usage: scripts/screenshots.sh [GEOSPEND_BINARY]   (make screenshots)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
geospend=$(realpath "${1:-$root/.build/debug/geospend}")
chromium=$(command -v chromium || command -v chromium-browser)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1767225600  # the layers' generated_at, so reruns give the same files

"$root/scripts/demo-database.sh" "$geospend" "$work/demo.sqlite" > /dev/null
"$geospend" export bundle --db "$work/demo.sqlite" --user user1 --out "$work/map"
"$geospend" report store 288130404 --db "$work/demo.sqlite" --format html > "$work/store.html"

shoot() {  # URL PNG WIDTH,HEIGHT
    "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000 \
        --window-size="$3" --screenshot="$2" "$1" 2> /dev/null
    echo "wrote $2"
}
shoot "file://$work/map/index.html" "$root/docs/map-bundle.png" 1200,800
shoot "file://$work/store.html" "$root/docs/store-report.png" 860,1150

# Maija (make demo's person): an OFX statement and a Timeline export, geotagged, on her map.
"$geospend" import expenses "$root/Data/examples/demo-person/statement.ofx" --preset ofx --user maija --db "$work/demo.sqlite"
"$geospend" import positions "$root/Data/examples/demo-person/Timeline.json" --user maija --db "$work/demo.sqlite"
"$geospend" geotag --user maija --timezone Europe/Helsinki --db "$work/demo.sqlite" > /dev/null
"$geospend" export bundle --db "$work/demo.sqlite" --user maija --out "$work/maija"
shoot "file://$work/maija/index.html" "$root/docs/geotagged-statement.png" 1200,800

# The web app (issue 41, docs/WEBAPP.md) from a real `geospend serve` in headless Chromium
# (Selenium), at desktop and phone size: Maija's March 2026 (geotagged: inferred positions), and
# the review screen of user1, whose expenses without a position geotag cannot all decide.
# Shop: the hand-written prices (Data/examples/prices.csv) and a list of Maija's; Review: a
# receipt photo of user1's that does not add up (Tests/Fixtures/receipts/README.md), kept.
"$geospend" prices import "$root/Data/examples/prices.csv" --user maija --db "$work/demo.sqlite" > /dev/null
"$geospend" lists add --user maija --name "Weekly shop" --budget 20 --currency EUR --item "Vollmilch 1,5%=2" --item "Äpfel=1kg" \
    --item "Stabilo Boss Textmarker" --db "$work/demo.sqlite" > /dev/null
"$geospend" receipts import "$root/Tests/Fixtures/receipts/tampered-phone-903-de.jpg" --user user1 --store 288130404 --keep-image \
    --db "$work/demo.sqlite" > /dev/null
token=$("$geospend" tokens create --user maija --scope read --expires 1d --db "$work/demo.sqlite" | tail -n 1)
reviewer=$("$geospend" tokens create --user user1 --scope read --expires 1d --db "$work/demo.sqlite" | tail -n 1)
"$geospend" serve --db "$work/demo.sqlite" --port 0 2> "$work/serve.log" &
serve=$!
trap 'kill "$serve" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 600); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.log" | head -1)
for size in 1280x900 390x844; do
    name=$([ "$size" = 1280x900 ] && echo desktop || echo phone)
    "$root/.venv/bin/python" "$root/Tests/validators/webapp_e2e.py" --url "http://127.0.0.1:$port" --token "$token" \
        --month 2026-03 --size "$size" --screenshot "$root/docs/webapp-month-$name.png" \
        --screenshot-shop "$root/docs/webapp-shop-$name.png" --screenshot-add "$root/docs/webapp-add-$name.png" > /dev/null
    "$root/.venv/bin/python" "$root/Tests/validators/webapp_e2e.py" --url "http://127.0.0.1:$port" --token "$reviewer" \
        --month 2026-03 --size "$size" --screenshot-review "$root/docs/webapp-review-$name.png" > /dev/null
    echo "wrote docs/webapp-{month,review,shop,add}-$name.png"
done
