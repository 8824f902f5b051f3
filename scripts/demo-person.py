#!/usr/bin/env python3
"""Writes make demo's person (Data/examples/demo-person/): two weeks of a made-up Helsinki
resident, Maija, as her bank and her phone would export them — an OFX 1.02 statement without
a single coordinate, and the Android Timeline export (semanticSegments, rawSignals) of her phone.

Deterministic (no randomness: positions jitter by a fixed pattern), from the real OpenStreetMap
places in Data/helsinki-places.geojson, so `geospend geotag` can put her spending on the map:
    python3 scripts/demo-person.py   # rewrites the two files

What the statement holds, and what geotagging should make of it:
- café and lunch card payments with a time (placed where the phone was then);
- groceries booked as bare dates, some a day late (placed at the store near that day's stays);
- online payments (a streaming service, a delivery app, a web shop), a salary and a transfer,
  which must never be placed.
"""
import json
import os
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "Data", "examples", "demo-person")
EET = timezone(timedelta(hours=2))

places = {f["id"]: f for f in json.load(open(os.path.join(REPO, "Data", "helsinki-places.geojson")))["features"]}


def at(osm_id):
    lon, lat = places[osm_id]["geometry"]["coordinates"]
    return lat, lon


HOME = (60.18425, 24.95010)  # a flat in Kallio: no store
OFFICE = (60.16985, 24.93640)  # an office by Kamppi: no store
# (OSM id, descriptor the bank prints, amount range) — descriptors as card terminals send them.
CAFE = [(317766538, "ROBERTS COFFEE HELSINKI"), (4747221541, "SUMUP *WAYNES COFFEE"), (6049453018, "FAZER CAFE HKI")]
LUNCH = [(6049453020, "FAZER FOOD MARKET"), (349041876, "S-MARKET HAKANIEMI")]
GROCERY = [(288130404, "S-MARKET SOKOS HELSINKI"), (4867546225, "LIDL"), (609682415, "ALEPA")]


def jitter(p, n, metres=8.0):
    # A fixed, small pattern of offsets: GPS noise of a few metres, reproducible.
    dlat = ((n * 7) % 5 - 2) * metres / 2 / 111_320
    dlon = ((n * 3) % 5 - 2) * metres / 2 / 55_800
    return (p[0] + dlat, p[1] + dlon)


def deg(p):
    return f"{p[0]:.7f}°, {p[1]:.7f}°"


def iso(t):
    return t.isoformat(timespec="milliseconds")


segments, signals, transactions = [], [], []
n_signal = 0


def stay(start, minutes, p, place_id=None, probability=0.9):
    global n_signal
    end = start + timedelta(minutes=minutes)
    segments.append({
        "startTime": iso(start), "endTime": iso(end),
        "startTimeTimezoneUtcOffsetMinutes": 120, "endTimeTimezoneUtcOffsetMinutes": 120,
        "visit": {"hierarchyLevel": 0, "probability": probability,
                  "topCandidate": {"placeId": place_id or "ChIJ-demo-home-or-work", "semanticType": "UNKNOWN",
                                   "probability": probability, "placeLocation": {"latLng": deg(p)}}},
    })
    t = start
    while t < end:
        n_signal += 1
        signals.append({"position": {"LatLng": deg(jitter(p, n_signal)), "accuracyMeters": 8 + n_signal % 13,
                                     "source": "GPS" if n_signal % 3 else "WIFI", "timestamp": iso(t)}})
        # Every 3 minutes at a store, every 20 elsewhere (home, office): the file stays small.
        t += timedelta(minutes=3 if place_id else 20)
    return end


def move(start, a, b, minutes):
    end = start + timedelta(minutes=minutes)
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    segments.append({
        "startTime": iso(start), "endTime": iso(end),
        "startTimeTimezoneUtcOffsetMinutes": 120, "endTimeTimezoneUtcOffsetMinutes": 120,
        "timelinePath": [{"point": deg(a), "time": iso(start)}, {"point": deg(mid), "time": iso(start + (end - start) / 2)}],
    })
    return end


def pay(t, amount, name, memo, dated=True):
    transactions.append((t, amount, name, memo, dated))


start_day = datetime(2026, 3, 2, tzinfo=EET)  # a Monday
for d in range(14):
    day = start_day + timedelta(days=d)
    weekday = day.weekday()
    t = day + timedelta(hours=7, minutes=40)
    t = stay(day, 7 * 60 + 40, HOME)  # the night at home
    if weekday < 5:
        cafe_id, cafe_name = CAFE[d % len(CAFE)]
        cafe = at(cafe_id)
        t = move(t, HOME, cafe, 20)
        arrive = t
        t = stay(t, 25, cafe, f"osm-{cafe_id}")
        pay(arrive + timedelta(minutes=6), f"{3.9 + (d % 4) * 0.6:.2f}", cafe_name, "Card purchase")
        t = move(t, cafe, OFFICE, 10)
        t = stay(t, 3 * 60, OFFICE)
        lunch_id, lunch_name = LUNCH[d % len(LUNCH)]
        lunch = at(lunch_id)
        t = move(t, OFFICE, lunch, 10)
        arrive = t
        t = stay(t, 35, lunch, f"osm-{lunch_id}")
        pay(arrive + timedelta(minutes=20), f"{11.5 + (d % 3) * 1.2:.2f}", lunch_name, "Lunch")
        t = move(t, lunch, OFFICE, 10)
        t = stay(t, 3 * 60 + 30, OFFICE)
        prev = OFFICE
    else:
        t = move(t, HOME, HOME, 60)
        prev = HOME
    if d % 2 == 0 or weekday >= 5:
        shop_id, shop_name = GROCERY[d % len(GROCERY)]
        shop = at(shop_id)
        t = move(t, prev, shop, 15)
        t = stay(t, 20, shop, f"osm-{shop_id}")
        # Groceries book as a bare date; every third a day late, as card payments often do.
        booked = (day + timedelta(days=1)) if d % 3 == 2 else day
        pay(booked, f"{18.4 + (d % 5) * 7.3:.2f}", shop_name, "Card purchase", dated=False)
        prev = shop
    t = move(t, prev, HOME, 20)
    stay(t, int((day + timedelta(days=1) - t).total_seconds() // 60), HOME)

# Money that was not spent at a place.
pay(datetime(2026, 3, 3, tzinfo=EET), "13.99", "NETFLIX.COM", "Subscription", dated=False)
pay(datetime(2026, 3, 6, 19, 40, tzinfo=EET), "24.80", "WOLT HELSINKI", "Delivery", dated=True)
pay(datetime(2026, 3, 10, tzinfo=EET), "39.90", "PAYPAL *ZALANDO", "Web shop", dated=False)
pay(datetime(2026, 3, 5, tzinfo=EET), "+2650.00", "ACME OY", "Salary March", dated=False)
pay(datetime(2026, 3, 12, tzinfo=EET), "250.00", "TO SAVINGS FI21 1234 5600 0007 85", "Transfer", dated=False)

os.makedirs(OUT, exist_ok=True)
with open(os.path.join(OUT, "Timeline.json"), "w") as f:
    json.dump({"semanticSegments": segments, "rawSignals": signals}, f, separators=(",", ":"), ensure_ascii=False)
    f.write("\n")

lines = ["OFXHEADER:100", "DATA:OFXSGML", "VERSION:102", "SECURITY:NONE", "ENCODING:USASCII", "CHARSET:1252",
         "COMPRESSION:NONE", "OLDFILEUID:NONE", "NEWFILEUID:NONE", "", "<OFX>", "<SIGNONMSGSRSV1>", "<SONRS>", "<STATUS>",
         "<CODE>0", "<SEVERITY>INFO", "</STATUS>", "<DTSERVER>20260316120000.000[+2:EET]", "<LANGUAGE>FIN", "</SONRS>",
         "</SIGNONMSGSRSV1>", "<BANKMSGSRSV1>", "<STMTTRNRS>", "<TRNUID>2001", "<STATUS>", "<CODE>0", "<SEVERITY>INFO",
         "</STATUS>", "<STMTRS>", "<CURDEF>EUR", "<BANKACCTFROM>", "<BANKID>NDEAFIHH", "<ACCTID>FI2112345600000785",
         "<ACCTTYPE>CHECKING", "</BANKACCTFROM>", "<BANKTRANLIST>", "<DTSTART>20260302", "<DTEND>20260315"]
for n, (t, amount, name, memo, dated) in enumerate(sorted(transactions, key=lambda x: x[0])):
    credit = amount.startswith("+")
    lines += ["<STMTTRN>", f"<TRNTYPE>{'CREDIT' if credit else ('XFER' if memo == 'Transfer' else 'POS')}",
              f"<DTPOSTED>{t.strftime('%Y%m%d%H%M%S')}.000[+2:EET]" if dated else f"<DTPOSTED>{t.strftime('%Y%m%d')}",
              f"<TRNAMT>{amount.lstrip('+') if credit else '-' + amount}", f"<FITID>2026{n:06d}", f"<NAME>{name}",
              f"<MEMO>{memo}", "</STMTTRN>"]
lines += ["</BANKTRANLIST>", "<LEDGERBAL>", "<BALAMT>1234.56", "<DTASOF>20260315", "</LEDGERBAL>", "</STMTRS>",
          "</STMTTRNRS>", "</BANKMSGSRSV1>", "</OFX>"]
with open(os.path.join(OUT, "statement.ofx"), "w", newline="\r\n") as f:
    f.write("\n".join(lines) + "\n")
print(f"{len(transactions)} transactions, {len(segments)} segments, {len(signals)} raw positions in {OUT}")
