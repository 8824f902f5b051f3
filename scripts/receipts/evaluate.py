#!/usr/bin/env python3
"""Scores `geospend receipts scan --format json` against the generator's ground truth (issue 42).

  scripts/receipts/evaluate.py --bin .build/debug/geospend --dir DIR [--sets clean,phone,hard]
                               [--steps all] [--limit N] [--failures FILE]

Per set: accepted (status ok), total exact, wrong totals accepted (ok with a total that is not
the truth: must be 0), date exact, store found (the registry's store, by id, when the set has a
stores.csv registry: the scan gets it as --stores; else the name as printed), items exact (every item's
name, quantity and price, in order), seconds per receipt (wall clock and CPU time of the whole
command, one at a time: on a shared machine the CPU time is the steadier figure). Prints a Markdown table; exits 1 when a wrong total was accepted.
"""

import argparse
import glob
import json
import os
import resource
import subprocess
import sys
import time
import unicodedata


def norm(s):
    return " ".join(unicodedata.normalize("NFC", s or "").casefold().split())


def items_exact(got, truth):
    if len(got) != len(truth):
        return False
    for g, t in zip(got, truth):
        if norm(g["name"]) != norm(t["name"]) or g["price"] != t["price"]:
            return False
        if abs(float(g["quantity"]) - float(t["quantity"])) > 1e-9:
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--sets", default="clean,phone,hard")
    ap.add_argument("--steps", default="all")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--lang", default="")
    ap.add_argument("--failures", help="write each receipt that is not accepted or wrong, with its text, here")
    args = ap.parse_args()
    rows = []
    wrong_any = 0
    failures = []
    for kind in args.sets.split(","):
        truths = sorted(glob.glob(os.path.join(args.dir, kind, "*.json")))
        if args.limit:
            truths = truths[: args.limit]
        n = ok = total = wrong = date = store = items = 0
        seconds = cpu = 0.0
        for path in truths:
            with open(path, encoding="utf-8") as f:
                truth = json.load(f)
            image = os.path.join(args.dir, kind, truth["image"])
            start = time.monotonic()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            registry = os.path.join(args.dir, "stores.csv")
            run = subprocess.run([args.bin, "receipts", "scan", image, "--format", "json", "--steps", args.steps]
                                 + (["--lang", args.lang] if args.lang else [])
                                 + (["--stores", registry] if os.path.exists(registry) else []),
                                 capture_output=True, text=True)
            seconds += time.monotonic() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            n += 1
            if run.returncode != 0:
                failures.append({"image": image, "error": run.stderr.strip()})
                continue
            got = json.loads(run.stdout)
            accepted = got["status"] == "ok"
            exact = got["total"] == truth["total"]
            ok += accepted
            total += exact
            if accepted and not exact:
                wrong += 1
            date += got["date"] == truth["date"]
            store_ok = (got.get("store_id") == truth["store"]["id"]) if "id" in truth["store"] else \
                norm(got["store"]) == norm(truth["store"]["name"])
            store += store_ok
            items += items_exact(got["items"], truth["items"])
            if not accepted or not exact or got["date"] != truth["date"] or not store_ok:
                failures.append({"image": image, "status": got["status"], "problems": got["problems"],
                                 "total": got["total"], "truth_total": truth["total"], "date": got["date"],
                                 "truth_date": truth["date"], "store": got["store"], "truth_store": truth["store"]["name"], "text": got["text"], "truth_text": truth["text"]})
        wrong_any += wrong
        rows.append((kind, n, ok, total, wrong, date, store, items, seconds, cpu))
    print(f"steps: {args.steps}")
    print("| set | receipts | accepted (ok) | total exact | wrong totals accepted | date exact | store found | items exact | s / receipt (wall) | s / receipt (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, n, ok, total, wrong, date, store, items, seconds, cpu in rows:
        f = (lambda k: f"{k / n:.3f}") if n else (lambda k: "-")
        print(f"| {kind} | {n} | {f(ok)} | {f(total)} | {wrong} | {f(date)} | {f(store)} | {f(items)} | "
              f"{seconds / n if n else 0:.2f} | {cpu / n if n else 0:.2f} |")
    if args.failures:
        with open(args.failures, "w", encoding="utf-8") as f:
            json.dump(failures, f, ensure_ascii=False, indent=1)
    sys.exit(1 if wrong_any else 0)


if __name__ == "__main__":
    main()
