"""Independent check of `geospend budgets summary --format json` (issue 17).

Written for GeoSpend's BudgetTests from the issue's rules, not from the Swift code: it reads
the raw expenses CSV GeoSpend imported (Data/README.md columns) and the budget as
`budgets list --all --format json` prints it, recomputes every figure with Python's own
date (datetime.date.fromisoformat, the local date of each RFC 3339 time as written),
decimal (fractions.Fraction) and geodesy (GeographicLib's WGS84 geodesic; Shapely/GEOS
`covers` for polygons) logic, and compares.

Usage: check_budget_summary.py EXPENSES.csv BUDGET.json SUMMARY.json USER
Prints "ok" and exits 0, or prints each mismatch and exits 1.
"""
import calendar
import csv
import datetime as dt
import json
import sys
from fractions import Fraction

from geographiclib.geodesic import Geodesic
from shapely.geometry import Point, shape


def round_half_away(x: Fraction, places: int) -> Fraction:
    scale = 10 ** places
    y = abs(x) * scale
    n = y.numerator // y.denominator
    if y - n >= Fraction(1, 2):
        n += 1
    return Fraction(n if x >= 0 else -n, scale)


def money(x: Fraction) -> str:
    r = round_half_away(x, 2)
    sign = "-" if r < 0 else ""
    cents = abs(r) * 100
    cents = cents.numerator // cents.denominator
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def window(budget, as_of):
    start, end = dt.date.fromisoformat(budget["from"]), dt.date.fromisoformat(budget["to"])
    every = budget["every"]
    if every is None:
        return start, end
    day = min(max(as_of, start), end)
    if every == "week":
        ws = day - dt.timedelta(days=day.weekday())  # Monday
        we = ws + dt.timedelta(days=6)
    elif every == "month":
        ws = day.replace(day=1)
        we = day.replace(day=calendar.monthrange(day.year, day.month)[1])
    else:
        ws, we = dt.date(day.year, 1, 1), dt.date(day.year, 12, 31)
    return max(ws, start), min(we, end)


def in_zone(zone, lat, lon):
    if zone is None:
        return True
    if lat is None:
        return False
    if zone["type"] == "circle":
        d = Geodesic.WGS84.Inverse(zone["lat"], zone["lon"], lat, lon)["s12"]
        return d <= zone["radius_m"]
    return shape(zone["geometry"]).covers(Point(lon, lat))


def expected(rows, budget, user, as_of):
    ws, we = window(budget, as_of)
    amount = Fraction(budget["amount"])
    spent, count = Fraction(0), 0
    per_cat, others = {}, {}
    for r in rows:
        if r["user"] != user or r["kind"] != "expense":
            continue
        day = dt.datetime.fromisoformat(r["occurred_at"]).date()  # local date as recorded
        if not (as_of >= ws and ws <= day <= min(as_of, we)):
            continue
        cat = r["category"] or None
        if budget["category"] is not None and (cat or "").lower() != budget["category"].lower():
            continue
        lat = float(r["lat"]) if r["lat"] else None
        lon = float(r["lon"]) if r["lon"] else None
        if not in_zone(budget["zone"], lat, lon):
            continue
        a = Fraction(r["amount"])
        if r["currency"] != budget["currency"]:
            c = others.setdefault(r["currency"], [0, Fraction(0)])
            c[0] += 1
            c[1] += a
            continue
        spent += a
        count += 1
        per_cat[cat] = per_cat.get(cat, Fraction(0)) + a
    limits = {l["category"]: Fraction(l["amount"]) for l in budget["category_limits"]}
    for name in limits:
        per_cat.setdefault(name, Fraction(0))
    total = (we - ws).days + 1
    passed = min(total, max(0, (as_of - ws).days + 1))
    divisor = max(1, passed)
    return {
        "window_from": ws.isoformat(), "window_to": we.isoformat(),
        "spent": money(spent), "remaining": money(amount - spent),
        "percentage_used": round_half_away(spent * 100 / amount, 2), "expenses": count,
        "by_category": {
            name: (money(v), money(limits[name]) if name in limits else None,
                   round_half_away(v * 100 / limits[name], 2) if name in limits else None)
            for name, v in per_cat.items()
        },
        "days_passed": passed, "total_days": total, "days_remaining": total - passed,
        "daily_average": money(spent / divisor), "projected_total": money(spent * total / divisor),
        "on_track": spent * total / divisor <= amount,
        "not_counted": {c: (n, money(t)) for c, (n, t) in others.items()},
    }


def main():
    csv_path, budget_path, summary_path, user = sys.argv[1:5]
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    budget = json.load(open(budget_path, encoding="utf-8"))
    got = json.load(open(summary_path, encoding="utf-8"))
    want = expected(rows, budget, user, dt.date.fromisoformat(got["as_of"]))
    got_cats = {
        c["category"]: (c["spent"], c["limit"], None if c["percentage_used"] is None else Fraction(str(c["percentage_used"])))
        for c in got["by_category"]
    }
    got_cmp = dict(got)
    got_cmp["percentage_used"] = Fraction(str(got["percentage_used"]))
    got_cmp["by_category"] = got_cats
    got_cmp["not_counted"] = {c["currency"]: (c["expenses"], c["total"]) for c in got["not_counted"]}
    bad = [f"{k}: geospend {got_cmp.get(k)!r}, expected {v!r}" for k, v in want.items() if got_cmp.get(k) != v]
    if bad:
        print(f"budget {budget['id']} as of {got['as_of']}:\n  " + "\n  ".join(bad))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
