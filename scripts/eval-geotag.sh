#!/usr/bin/env bash
# make eval-geotag (and the last step of make bench): the geotagger scored on the project's own
# simulator (docs/GEOTAG.md § The simulator) on held-out seeds, the tuning seeds 1-8 beside them,
# and the issue's speed figures (1M positions read from a Records.json, 100k expenses geotagged;
# the CLI's import of them into a file and into PostgreSQL, scripts/import-positions-speed.sh).
# Raw figures go to Benchmarks/results/geotag-eval.json, the tables between the geotag markers
# of Benchmarks/RESULTS.md. Exit 1 when a goal is unmet, after both are written.
#   GEOTAG_SEEDS (default 101-108) the held-out seeds; GEOSPEND another binary.
set -euo pipefail
geospend=${GEOSPEND:-.build/release/geospend}
out=Benchmarks/results/geotag-eval.json
mkdir -p Benchmarks/results
status=0
"$geospend" evaluate geotag --seeds "${GEOTAG_SEEDS:-101-108}" --tuning-seeds 1-8 --speed --format json >"$out.partial" || status=$?
if [ "$status" -gt 1 ]; then rm -f "$out.partial"; exit "$status"; fi
mv "$out.partial" "$out"
imports=Benchmarks/results/positions-import.json
GEOSPEND=$geospend scripts/import-positions-speed.sh >"$imports.partial"
mv "$imports.partial" "$imports"
python3 - "$out" "$(nproc)" "$(date -u +%F)" "$imports" <<'PY' | tee /dev/stderr | python3 scripts/results_section.py geotag
import json, sys
r, cores, day = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
imports = json.load(open(sys.argv[4]))
def meters(x): return "–" if x is None else f"{x:.0f} m"
def row(name, e):
    med = e["median_error_m"]
    return (f"| {name} | {e['in_person_timestamped']:,} / {e['in_person_date_only']:,} | {e['placed']:,} | {e['ambiguous']:,} "
            f"| {e['precision']:.3f} | {e['recall_timestamped']:.3f} | {e['recall_date_only']:.3f} | {e['online_placed']} "
            f"| {e['non_expenses_placed']} | {meters(med)} | {meters(e['median_error_history_only_m'])} ({e['history_only_placed']:,}) "
            f"| {e['calibration']:.3f} ({e['high_confidence_placed']:,}) "
            f"| {'met' if not e['unmet_goals'] else '**missed**: ' + '; '.join(e['unmet_goals'])} |")
out = [f"### {day}, {r['build']} build, {cores} cores: {r['people']} people × {r['days']} days per seed, {r['places']} places", ""]
head = ("| seeds | in person (timestamped / date-only) | placed | ambiguous | precision (≥ 0.98) | recall timestamped (≥ 0.90) "
        "| recall date-only (≥ 0.75) | online placed (0) | incomes placed (0) | median error (≤ 25 m) | no store named: median error (n) | calibration (≥ 0.9) (n) | goals |")
out += [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
for key, label in (("holdout", "held-out"), ("tuning", "tuning (not a test)")):
    if key not in r: continue
    s = r[key]
    seeds, runs = s["seeds"], []
    for x in seeds:  # 101-108 as a range, other lists as they are
        if runs and x == runs[-1][1] + 1: runs[-1][1] = x
        else: runs.append([x, x])
    text = ",".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)
    out.append(row(f"**{label} {text}, total**", s["total"]))
    for p in s["per_seed"]:
        out.append(row(f"{label} {p['seed']}", p))
if "speed" in r:
    s = r["speed"]
    judged = s["positions"] == 1_000_000 and s["expenses"] == 100_000
    def verdict(ok): return ("met" if ok else "**missed**") if judged else "not judged (not the issue's sizes)"
    out += ["", "| speed | figure | goal |", "|---|---:|---|",
            f"| read {s['positions']:,} positions from a Records.json of {s['records_json_bytes']/1e6:.0f} MB | {s['read_seconds']:.2f} s | ≤ 10 s: {verdict(s['read_seconds'] <= 10)} |",
            f"| peak RSS before / after the read (getrusage) | {s['peak_rss_before_read_mib']:.0f} / {s['peak_rss_after_read_mib']:.0f} MiB | flat: +{s['peak_rss_after_read_mib'] - s['peak_rss_before_read_mib']:.0f} MiB for {s['positions']:,} positions kept (40 B each), not the file's text |",
            f"| geotag {s['expenses']:,} expenses against them (tagger built + decided) | {s['geotag_total_seconds']:.2f} s ({s['tagger_build_seconds']:.2f} + {s['geotag_seconds']:.2f}) | ≤ 5 s: {verdict(s['geotag_total_seconds'] <= 5)} |"]
n = imports["positions"]
out += ["", f"`geospend import positions` of a Records.json of {n:,} fixes ({imports['records_json_bytes']/1e6:.0f} MB), CLI end to end "
        "(wall time and peak RSS by /usr/bin/time; scripts/import-positions-speed.sh):", "",
        "| store | first import (all new) | peak RSS | again (all present) | peak RSS | goal: ≤ 10 s |", "|---|---:|---:|---:|---:|---|"]
for key, label in (("sqlite", "SpatiaLite file"), ("postgresql", "PostgreSQL 15 + PostGIS 3 (loopback)")):
    a, b = imports[key]["first"], imports[key]["again"]
    ok = a["seconds"] <= 10 and b["seconds"] <= 10
    verdict = ("met" if ok else "**missed**") if n == 1_000_000 else "not judged (not the issue's size)"
    out.append(f"| {label} | {a['seconds']:.2f} s | {a['peak_rss_mib']:.0f} MiB | {b['seconds']:.2f} s | {b['peak_rss_mib']:.0f} MiB | {verdict} |")
out += ["", "All goals met on the held-out seeds." if r["goals_met"] else "Unmet: " + "; ".join(r["unmet_goals"]) + "."]
print("\n".join(out))
PY
exit "$status"
