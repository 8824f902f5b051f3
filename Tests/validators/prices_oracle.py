"""Independent answers for the cheapest basket, inflation and receipt parsing (issue 18).

Written for GeoSpend by helper Q (session 10) from the rules in the issue text and README
"Cheapest basket" / "Price inflation" / "Receipts", without reading the Swift code's loops: plain
brute force over every store and every pair of stores, geodesic distances from GeographicLib's
Python port (Karney 2013, https://geographiclib.sourceforge.io/Python/doc/), medians by the
rule of docs/DOMAIN.md § Medians.

Run from the repository root to regenerate the fixtures (deterministic: fixed seeds):

    .venv/bin/python Tests/validators/prices_oracle.py

It writes Tests/Fixtures/prices/{basket,inflation,receipts}.json; the Swift tests
(Tests/GeoSpendTests/BasketTests.swift, InflationTests.swift, ReceiptTextTests.swift) rebuild each
case's input and compare their answer with `expected`.
"""
import json
import math
import os
import random
from datetime import date, timedelta

from geographiclib.geodesic import Geodesic

OUT = os.path.join(os.path.dirname(__file__), "..", "Fixtures", "prices")
WGS84 = Geodesic.WGS84
HOME = (60.1699, 24.9384)  # Helsinki centre


def dist(a, b):
    return WGS84.Inverse(a[0], a[1], b[0], b[1])["s12"]


# Pack sizes in thousandths of g / ml / piece, as the Swift side keeps them.
UNITS = {"pcs": ("count", 1000), "kg": ("mass", 1_000_000), "g": ("mass", 1000), "l": ("volume", 1_000_000), "ml": ("volume", 1000)}


def pack(text):
    digits = "".join(c for c in text if c.isdigit() or c == ".")
    unit = text[len(digits):].strip() or "pcs"
    dim, factor = UNITS[unit]
    whole, _, frac = digits.partition(".")
    thousandths = (int(whole) * 1000 + int((frac + "000")[:3] or 0)) * factor // 1000
    return dim, thousandths


def round_half_away(num, den):
    q, r = divmod(num, den)
    return q + 1 if 2 * r >= den else q


def median(values):
    v = sorted(values)
    n = len(v)
    if n % 2:
        return v[n // 2]
    return round_half_away(v[n // 2 - 1] + v[n // 2], 2)


def minor(price_text):
    whole, _, frac = price_text.partition(".")
    return int(whole) * 100 + int((frac + "00")[:2])


def basket_answer(case):
    stores = {s["id"]: s for s in case["stores"]}
    items = case["items"]
    as_of = case["as_of"]
    products = {i["product"] for i in items}
    usable = [r for r in case["records"] if r["product"] in products and r["date"] <= as_of and r["store"] in stores]
    counts = {}
    for r in usable:
        counts[r["currency"]] = counts.get(r["currency"], 0) + 1
    currency = case["currency"] or (min(counts, key=lambda c: (-counts[c], c)) if counts else None)
    if currency is None:
        return {"currency": None, "stores": [], "best_by_estimate": None, "split": None}
    near = case["near"]
    d = {sid: (dist(near, (s["lat"], s["lon"])) if near else None) for sid, s in stores.items()}

    def in_reach(sid):
        return near is None or case["radius_m"] is None or d[sid] <= case["radius_m"]

    latest, users = {}, {}
    for r in usable:
        if r["currency"] != currency or not in_reach(r["store"]):
            continue
        key = (r["store"], r["product"])
        users.setdefault(key, set()).add(r["user"] or "")
        best = latest.get(key)
        if best is None or (r["ms"], -minor(r["price"])) > (best["ms"], -minor(best["price"])):
            latest[key] = r
    for key, who in users.items():
        if len(who) < case["min_users"]:
            latest.pop(key, None)
    candidates = sorted({k[0] for k in latest})

    # The pack a count means when an item's packs differ: the most common (ties: the smaller).
    def common(item):
        c = {}
        for (s, p), r in latest.items():
            if p == item["product"]:
                c[pack(r["pack"])] = c.get(pack(r["pack"]), 0) + 1
        if len(c) <= 1:
            return None
        return min(c, key=lambda k: (-c[k], k[1]))

    def price_of(r, item, common_pack):
        want = item["want"]
        pk = pack(r["pack"])
        p = minor(r["price"])
        if want.isdigit():
            n = int(want)
            if common_pack is None or common_pack == pk:
                return p * n
            amount = (common_pack[0], common_pack[1] * n)
        else:
            amount = pack(want)
            if amount[0] == "count" and amount[1] % 1000 == 0:
                n = amount[1] // 1000
                if common_pack is None or common_pack == pk:
                    return p * n
                amount = (common_pack[0], common_pack[1] * n)
        if amount[0] != pk[0]:
            return None
        return round_half_away(p * amount[1], pk[1])

    commons = [common(i) for i in items]
    prices = {}
    for s in candidates:
        for idx, item in enumerate(items):
            r = latest.get((s, item["product"]))
            prices[(s, idx)] = price_of(r, item, commons[idx]) if r else None

    cpk = case["cost_per_km_minor"]

    def travel(meters):
        if cpk is None or meters is None:
            return 0
        return math.floor(cpk * meters / 1000 + 0.5)

    n = len(items)
    lines = []
    for s in candidates:
        avail = [idx for idx in range(n) if prices[(s, idx)] is not None]
        total = sum(prices[(s, idx)] for idx in avail)
        est = total
        for idx in range(n):
            if prices[(s, idx)] is None:
                elsewhere = [prices[(o, idx)] for o in candidates if o != s and prices[(o, idx)] is not None]
                if elsewhere:
                    est += median(elsewhere)
        tr = travel(2 * d[s] if d[s] is not None else None)
        lines.append({
            "id": s, "total_minor": total, "travel_minor": tr, "estimated_total_minor": est,
            "available": len(avail),
            "unavailable": [items[idx]["name"] for idx in range(n) if prices[(s, idx)] is None],
            "item_prices": {items[idx]["name"]: prices[(s, idx)] for idx in avail},
        })
    kept = [l for l in lines if n > 0 and l["available"] / n >= case["min_availability"]]
    kept.sort(key=lambda l: (l["total_minor"] + l["travel_minor"], l["id"]))
    best_est = min(kept, key=lambda l: (l["estimated_total_minor"] + l["travel_minor"], l["id"]))["id"] if kept else None

    split = None
    if kept:
        best = kept[0]
        options = []
        for i, a in enumerate(candidates):
            for b in candidates[i + 1:]:
                at_a = at_b = total = avail = 0
                for idx in range(n):
                    pa, pb = prices[(a, idx)], prices[(b, idx)]
                    if pa is None and pb is None:
                        continue
                    avail += 1
                    if pb is None or (pa is not None and pa <= pb):
                        total += pa
                        at_a += 1
                    else:
                        total += pb
                        at_b += 1
                if at_a == 0 or at_b == 0 or avail < best["available"] or avail / n < case["min_availability"]:
                    continue
                sa, sb = (stores[a]["lat"], stores[a]["lon"]), (stores[b]["lat"], stores[b]["lon"])
                trip = dist(near, sa) + dist(sa, sb) + dist(sb, near) if near else None
                tr = travel(trip)
                options.append((total + tr, a, b, total, tr))
        if options:
            w = min(options)
            if w[0] < best["total_minor"] + best["travel_minor"]:
                split = {"first": w[1], "second": w[2], "total_minor": w[3], "travel_minor": w[4],
                         "saving_minor": best["total_minor"] + best["travel_minor"] - w[0]}
    return {"currency": currency, "stores": kept[: case["top"]], "best_by_estimate": best_est, "split": split}


def basket_cases():
    rnd = random.Random(18)
    cases = []
    product_packs = {"milk": ["1l", "0.5l"], "bread": ["500g", "750g"], "apples": ["1kg", "2kg"], "eggs": ["10", "6"],
                     "butter": ["250g"], "coffee": ["500g", "1kg"], "juice": ["1l"], "cheese": ["400g", "1kg"]}
    for c in range(60):
        stores = []
        for s in range(rnd.randint(3, 9)):
            lat = HOME[0] + rnd.uniform(-0.05, 0.05)
            lon = HOME[1] + rnd.uniform(-0.1, 0.1)
            stores.append({"id": f"node/{100 + s}", "name": f"Store {s}", "lat": round(lat, 6), "lon": round(lon, 6)})
        names = rnd.sample(sorted(product_packs), rnd.randint(2, 7))
        items = []
        for p in names:
            want = rnd.choice(["1", "1", "2", "3", product_packs[p][0]])
            items.append({"name": p.capitalize(), "product": p, "want": want})
        records = []
        base_day = date(2025, 6, 30)
        for s in stores:
            for p in product_packs:
                if rnd.random() < 0.15:
                    continue
                for _ in range(rnd.randint(1, 2)):
                    day = base_day - timedelta(days=rnd.randint(-5, 60))
                    ms = int((day - date(1970, 1, 1)).total_seconds() * 1000) + rnd.choice([0, 3_600_000, 3_600_000 * 9])
                    cents = rnd.randint(49, 1299)
                    records.append({
                        "product": p, "store": s["id"], "price": f"{cents // 100}.{cents % 100:02d}",
                        "currency": "EUR" if rnd.random() < 0.85 else "SEK",
                        "pack": rnd.choice(product_packs[p]) if rnd.random() < 0.3 else product_packs[p][0],
                        "date": day.isoformat(), "ms": ms, "user": rnd.choice(["u1", "u2", "u3", "u4", None]),
                    })
        near = [HOME[0], HOME[1]] if c % 3 else None
        case = {
            "name": f"generated-{c}", "as_of": base_day.isoformat(), "stores": stores, "items": items, "records": records,
            "near": near, "radius_m": rnd.choice([None, 3000.0, 6000.0]) if near else None,
            "cost_per_km_minor": rnd.choice([None, 10, 30, 80]) if near else None,
            "min_users": rnd.choice([1, 1, 1, 2]), "currency": "SEK" if c % 17 == 5 else None, "top": 3,
            "min_availability": rnd.choice([0.85, 0.85, 0.5]),
        }
        case["expected"] = basket_answer(case)
        cases.append(case)
    return cases


def inflation_answer(records, products, as_of, days):
    start = (date.fromisoformat(as_of) - timedelta(days=days)).isoformat()
    win = [r for r in records if r["product"] in products and start <= r["date"] <= as_of]
    per = {}
    for r in win:
        per.setdefault(r["product"], []).append(r)
    rates = {}
    for p, rs in per.items():
        rs.sort(key=lambda r: (r["date"], r["ms"], unit_price(r)))
        n = len(rs)
        if n < 2:
            rates[p] = (0.0, n)
            continue
        k = max(1, n // 4)
        first = sum(unit_price(r) for r in rs[:k]) / k
        last = sum(unit_price(r) for r in rs[-k:]) / k
        rates[p] = ((last - first) / first * 100, n)
    if len(products) == 1:
        rate = rates.get(next(iter(products)), (0.0, 0))[0]
    else:
        weighted = [(r, n) for r, n in rates.values() if n >= 2]
        w = sum(n for _, n in weighted)
        rate = sum(r * n for r, n in weighted) / w if w else 0.0
    return {"rate_percent": rate, "records": len(win), "products": {p: {"rate_percent": r, "records": n} for p, (r, n) in rates.items()}}


def unit_price(r):
    dim, th = pack(r["pack"])
    per = 1000 if dim == "count" else 1_000_000
    return (minor(r["price"]) / 100) / (th / per)


def inflation_cases():
    rnd = random.Random(1818)
    cases = []
    for c in range(40):
        products = {"milk": "1l", "butter": "250g", "cheese": "1kg", "eggs": "10"}
        records = []
        for p, pk in products.items():
            level = {"milk": 120, "butter": 250, "cheese": 1500, "eggs": 300}[p]
            for _ in range(rnd.randint(0, 14)):
                day = date(2025, 6, 30) - timedelta(days=rnd.randint(-10, 420))
                drift = 1 + 0.0004 * (420 - (date(2025, 6, 30) - day).days)
                cents = max(1, int(level * drift * rnd.uniform(0.9, 1.1)))
                ms = int((day - date(1970, 1, 1)).total_seconds() * 1000) + rnd.randint(0, 86_399) * 1000
                records.append({"product": p, "store": "node/1", "price": f"{cents // 100}.{cents % 100:02d}", "currency": "EUR",
                                "pack": rnd.choice([pk, pk, "500g"]) if p == "cheese" else pk, "date": day.isoformat(), "ms": ms})
        chosen = [rnd.choice(sorted(products))] if c % 2 == 0 else sorted(products)
        days = rnd.choice([365, 90, 30])
        case = {"name": f"generated-{c}", "as_of": "2025-06-30", "days": days, "products": chosen, "records": records}
        case["expected"] = inflation_answer(records, set(chosen), "2025-06-30", days)
        cases.append(case)
    return cases


def receipt_cases():
    rnd = random.Random(181818)
    names = ["Milch 1,5%", "Brot Vollkorn", "Äpfel 1kg", "Joghurt", "Product Name", "Bio Eier 10er", "Käse Gouda",
             "Bananen", "Mineralwasser 1,5l", "Butter 250g", "Kaffee", "Nudeln 500g"]
    stores = ["REWE Markt", "EDEKA Center", "Lidl", "ALDI SÜD", "K-Citymarket"]
    cases = []
    for c in range(50):
        comma = rnd.random() < 0.7
        lines = [rnd.choice(stores)]
        items = []
        for _ in range(rnd.randint(1, 8)):
            name = rnd.choice(names)
            qty = rnd.choice([1, 1, 1, 2, 3])
            cents = rnd.randint(19, 2999) * qty
            amount = f"{cents // 100}{',' if comma else '.'}{cents % 100:02d}"
            prefix = f"{qty}x " if qty > 1 else ""
            suffix = rnd.choice(["", "", " A", " B", " €"])
            lines.append(f"{prefix}{name} {amount}{suffix}")
            items.append({"name": name, "quantity": qty, "price_minor": cents})
        total = sum(i["price_minor"] for i in items)
        if c % 7 == 3:
            total += rnd.randint(1, 300)  # a misread line: the sum check must say so
        word = rnd.choice(["SUMME", "TOTAL", "GESAMT", "Summe EUR"])
        lines.append(f"{word} {total // 100}{',' if comma else '.'}{total % 100:02d}")
        if rnd.random() < 0.5:
            lines.append("Bar 50,00")
        text = "\n".join(lines) + "\n"
        cases.append({"name": f"generated-{c}", "text": text,
                      "expected": {"store": lines[0], "items": items, "total_minor": total,
                                   "sum_matches": total == sum(i["price_minor"] for i in items)}})
    return cases


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, cases in (("basket", basket_cases()), ("inflation", inflation_cases()), ("receipts", receipt_cases())):
        with open(os.path.join(OUT, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump({"generator": "Tests/validators/prices_oracle.py", "cases": cases}, f, ensure_ascii=False, indent=None, separators=(",", ":"))
            f.write("\n")
