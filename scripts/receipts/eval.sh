#!/usr/bin/env bash
# make eval-receipts: generates the receipt photos (clean, phone, hard; PER_SET each, fixed seed)
# into .build/receipts-eval once, then scores `geospend receipts scan` on them
# (scripts/receipts/evaluate.py). Exits 1 when a wrong total was accepted.
#   scripts/receipts/eval.sh [GEOSPEND_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/debug/geospend}
per_set=${PER_SET:-40}
out=.build/receipts-eval
stamp="$out/.generated-$per_set-$(md5sum scripts/receipts/generate.py | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  rm -rf "$out" && mkdir -p "$out"
  echo "eval-receipts: generating $per_set photos per set into $out"
  .venv/bin/python scripts/receipts/generate.py --out "$out" --per-set "$per_set"
  touch "$stamp"
fi
.venv/bin/python scripts/receipts/evaluate.py --bin "$bin" --dir "$out" --failures "$out/failures.json" ${STEPS:+--steps "$STEPS"}
