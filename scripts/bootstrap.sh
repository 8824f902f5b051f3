#!/usr/bin/env bash
# Installs the Debian packages GeoSpend builds and tests against; a no-op when all are present.
# Usage: scripts/bootstrap.sh [extra-package ...]
set -euo pipefail

packages=(
  libsqlite3-dev sqlite3          # SQLite headers and shell
  libspatialite-dev               # SpatiaLite C API (system-library target CSpatiaLite)
  libsqlite3-mod-spatialite       # mod_spatialite for the sqlite3 shell and GDAL
  spatialite-bin                  # spatialite CLI, used by tests as an outside reader
  libgeos-dev                     # GEOS C API (system-library target CGEOS)
  libproj-dev                     # GeographicLib's geodesic.c as shipped in PROJ (CProj)
  zlib1g-dev                      # zlib: gzip of vector tiles in MBTiles (CZlib)
  libtesseract-dev libleptonica-dev  # Tesseract OCR and Leptonica C APIs (CTesseract), receipts scan
  tesseract-ocr-deu tesseract-ocr-eng tesseract-ocr-fin  # OCR language data
  fonts-dejavu-core               # DejaVu Sans Mono: the receipt generator's till font
  gdal-bin                        # ogrinfo: outside reader of our SpatiaLite file and exports
  libjs-leaflet                   # Leaflet, copied into `geospend export bundle` folders
  chromium                        # headless browser test of the bundle page and the web app
  chromium-driver                 # WebDriver for the web app's Selenium end-to-end test
  python3-venv                    # project-local virtual environment for fixture oracles
  pkg-config
  bc                              # arithmetic in scripts/bench.sh
  wrk                             # HTTP load for scripts/bench-service.sh
  jq                              # reads the answers' rows in scripts/bench-service.sh
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
