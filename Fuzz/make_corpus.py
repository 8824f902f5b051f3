"""Writes the seed corpus Fuzz/corpus/<target>/ (committed; re-run to re-create it exactly).

    python3 Fuzz/make_corpus.py

Seeds are small: the first rows of Data/sample-expenses.csv (as CSV and as JSON Lines), the first
features of Data/helsinki-places.geojson, plus hand-written edge cases for each rule the readers
document (BOM, CRLF and lone CR, quotes, ragged rows, NUL, bad UTF-8, duplicate JSON keys,
NaN, deep nesting, ±180°, poles, offsets, leap days, currency digits). Plain Python, no packages.
"""
import csv
import hashlib
import io
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Fuzz" / "corpus"


def write(target, seeds):
    d = OUT / target
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for s in seeds:
        b = s if isinstance(s, bytes) else s.encode()
        (d / hashlib.sha1(b).hexdigest()[:16]).write_bytes(b)
    print(f"{target}: {len(seeds)} seeds")


sample = (ROOT / "Data" / "sample-expenses.csv").read_text().splitlines(keepends=True)
header = sample[0]
rows = sample[1:13]

# CSV
csv_seeds = ["".join([header] + rows)]
csv_seeds += [header + r for r in rows[:4]]
csv_seeds += [
    "\ufeff" + header + rows[0],
    (header + rows[1]).replace("\n", "\r\n"),
    (header + rows[1]).replace("\n", "\r"),
    header + 'e9,user1,expense,"1.50",EUR,2026-03-05,"a ""quoted"" title",Food,"multi\nline",,,,,\n',
    header + 'e9,user1,expense,1.50,EUR,2026-03-05,"unterminated,Food,,,,,,\n' + rows[2],
    header + 'e9,user1,expense,1.50,EUR,2026-03-05,ti"tle,Food,,,,,,\n',
    header + 'e9,user1,expense,1.50,EUR,2026-03-05,"x"y,Food,,,,,,\n',
    header + "e9,user1,expense,1.50,EUR\n",
    header + "e9,user1,expense,1.50,EUR,2026-03-05,t,Food,,,,,,,extra\n",
    header + "e9,user1,income,1000,JPY,2026-02-29,t,,,90,-180,0,,\n",
    header + "e9,user1,expense,0.001,KWD,2026-03-05T23:59:59.999-12:00,t,,,-90,180,,,\n",
    header + "e9,user1,expense,1e3,EUR,2026-13-01,t,,,91,0,,,\n",
    header + "e9,user1,expense,nan,XAU,2026-03-05T08:15:00,t,,,nan,inf,-1,,\n",
    b"id,user,amount,currency,occurred_at\ne1,u\x00,1,EUR,2026-01-01\n",
    b"id,user,amount,currency,occurred_at\ne1,\xff\xfe,1,EUR,2026-01-01\n",
    "id,user,user,amount,currency,occurred_at\n",
    "id,colour\n1,red\n",
    "",
    ",\n,,\n",
]
write("csv", csv_seeds)

# JSON Lines: the same rows as objects, numbers where the format allows them.
reader = csv.DictReader(io.StringIO("".join([header] + rows)))
objects = []
for r in reader:
    o = {k: v for k, v in r.items() if v != ""}
    for k in ("lat", "lon", "accuracy_m"):
        if k in o:
            o[k] = float(o[k])
    objects.append(o)
jsonl = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)
jsonl_seeds = [jsonl] + [json.dumps(o) + "\n" for o in objects[:4]]
jsonl_seeds += [
    "\ufeff" + json.dumps(objects[0]),
    jsonl.replace("\n", "\r\n"),
    '{"user":"u","amount":"1.50","currency":"EUR","occurred_at":"2026-03-05","user":"v"}\n',
    '{"user":"u","amount":1.5,"currency":"EUR","occurred_at":"2026-03-05","lat":NaN,"lon":1}\n',
    '{"user":"u","amount":"1.50","currency":"EUR","occurred_at":"2026-03-05","colour":"red"}\n',
    '{"user":"u","amount":"1.50","currency":"EUR","occurred_at":"2026-03-05","title":["a"]}\n',
    '{"user":"\\ud83d\\ude00","amount":"7","currency":"JPY","occurred_at":"2026-03-05T08:15:00Z","notes":"\\u00e9\\n"}\n',
    '{"user":"u","title":"\\ud800"}\n',
    "[1,2,3]\n\n   \n{}\n",
    "[" * 70 + "]" * 70 + "\n",
    '{"a":01}\n{"a":1.}\n{"a":-}\n{"a":1e}\n{"a":tru}\n',
    b'{"user":"u\x00"}\n{"user":"\xc3\x28"}\n',
    '{"user":"u","amount":"1","currency":"EUR","occurred_at":"2026-03-05","lat":60.1,"lon":24.9,"accuracy_m":-1}',
]
write("jsonl", jsonl_seeds)

# GeoJSON stores
places = json.loads((ROOT / "Data" / "helsinki-places.geojson").read_text())
few = dict(places, features=places["features"][:6])
one = places["features"][0]


def fc(*features):
    return json.dumps({"type": "FeatureCollection", "features": list(features)})


def point(lon, lat, **props):
    return {"type": "Feature", "id": props.pop("fid", "s1"), "geometry": {"type": "Point", "coordinates": [lon, lat]},
            "properties": props}


geojson_seeds = [
    json.dumps(few, ensure_ascii=False),
    fc(one),
    "\ufeff" + fc(one),
    fc(point(180, 90, name="pole"), point(-180, -90, fid=2, name="south"), point(0, 0, fid="x", name="null island")),
    fc(point(181, 0), point(0, 91, fid="b"), point("1", "2", fid="c")),
    fc({"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}, "properties": {}}),
    fc({"type": "Feature", "geometry": None, "properties": {"id": "p"}}),
    fc(point(24.9, 60.1, fid=None, osm_id=123, name="a"), point(24.9, 60.1, fid=None, name="b")),
    fc(point(24.9, 60.1, name="a"), point(24.9, 60.2, name="dup id")),
    '{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[1,2,3]},"properties":{"name":"x","kind":"shop:bakery","brand":"b","street":"s","postcode":"1","city":"c","country":"FI"}}]}',
    '{"type":"Feature"}',
    '{"type":"FeatureCollection","features":{}}',
    '{"type":"FeatureCollection","features":[],"type":"x"}',
    "",
]
write("geojson", geojson_seeds)

# Option values and single fields
write("arguments", [
    "500m", "500 m", "1.5km", "2 km", "750", "0m", "-1km", "1e308km", "nanm", "1.km", " 12 m\t",
    "2026-03-05", "2026-02-29", "2024-02-29", "2026-03-05T08:15:00+02:00", "2026-03-05T23:30:00-05:00",
    "2026-03-05T08:15:00.123456789Z", "2026-03-05t08:15:00z", "2026-03-05 08:15:00+14:00", "0000-01-01T00:00:00-23:59",
    "9999-12-31T23:59:59+23:59", "2026-03-05T08:15:00", "2026-03", "2026-13", "1970-01",
    "12.50", "0.001", "1000.00", "999999999999999", "1e3", "+1", ".5", "0.0001",
])

# Statements and GPX: the documented example files whole, single transactions cut from them, and
# hand-written edge cases (unclosed SGML tags, zones, comma decimals, split dates, encodings).
examples = ROOT / "Data" / "examples"
ofx1 = (examples / "statement-ofx1.ofx").read_bytes()
ofx2 = (examples / "statement-ofx2.ofx").read_bytes()
ofx_trn = ("<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKTRANLIST>\n<STMTTRN>\n<TRNTYPE>DEBIT\n"
           "<DTPOSTED>20250301120000.000[+2:EET]\n<TRNAMT>{amt}\n<FITID>{id}\n<NAME>{name}\n</STMTTRN>\n"
           "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n")
write("ofx", [
    ofx1, ofx2, ofx1.replace(b"\n", b"\r\n"),
    ofx_trn.format(amt="-4.50", id="1", name="Caf\u00e9"),
    ofx_trn.format(amt="-4,50", id="2", name="A &amp; B"),
    ofx_trn.format(amt="12", id="", name=""),
    ofx_trn.format(amt="x", id="3", name="n").replace("[+2:EET]", "[-5.5:X]"),
    ofx_trn.format(amt="-1", id="4", name="n").replace("20250301120000.000", "2025"),
    b"OFXHEADER:100\nDATA:OFXSGML\nCHARSET:8859-1\n\n<OFX><STMTTRN><NAME>caf\xe9</STMTTRN></OFX>\n",
    b'<?xml version="1.0" encoding="UTF-16"?><OFX/>', b"<OFX><STMTTRN>", b"",
])
sta = (examples / "statement.sta").read_bytes()
sta2 = (ROOT / "Tests" / "Fixtures" / "presets" / "mt940-second.mt940").read_bytes()
write("mt940", [
    sta, sta2, sta.replace(b"\n", b"\r\n"), b"{1:F01BANK}{4:\n" + sta + b"-}",
    b":20:X\n:25:DE1/2\n:60F:C251231EUR0,00\n:61:2601020102D4,50NMSCNONREF\n:86:105?00LASTSCHRIFT?20Kaffee?32Caf\xe9\n:62F:C260102EUR4,50\n",
    b":20:X\n:61:2512310101C1,NTRFNONREF\n:86:?20a?21b\n", b":61:", b":86:?", b"",
])
monzo = (examples / "monzo-api.json").read_bytes()
monzo2 = (ROOT / "Tests" / "Fixtures" / "presets" / "monzo-api-second.json").read_bytes()
write("monzo-api", [
    monzo, monzo2,
    '{"transactions":[{"id":"tx_1","created":"2026-03-05T08:40:00Z","amount":-450,"currency":"GBP","merchant":{"name":"Caf\u00e9","online":false,"address":{"latitude":91,"longitude":0}}}]}',
    '{"transactions":[{"id":"tx_2","created":"2026-03-05T08:40:00Z","amount":9223372036854775807,"currency":"JPY"}]}',
    '{"transactions":[]}', '{"transactions":{}}', "[]", "",
])
qif = (examples / "statement.qif").read_bytes()
write("qif", [
    qif, qif.replace(b"\n", b"\r\n"),
    b"!Type:Bank\nD03/01/2025\nT-4.50\nPCafe\n^\n",
    b"!Type:CCard\nD3/1'25\nT1,234.56\nPx\n^\nD12/31/99\nT-0.01\n^\n",
    b"!Type:Bank\nD31.02.2025\nT-1\n^\n", b"!Type:Bank\nT-1\n", b"D\n^\n", b"^", b"",
])
camt = (examples / "statement-camt053.xml").read_bytes()
write("camt053", [
    camt, camt.replace(b"\n", b"\r\n"),
    b'<?xml version="1.0"?><Document><BkToCstmrStmt><Stmt><Ntry><Amt Ccy="EUR">4.50</Amt>'
    b"<CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2025-03-01</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>",
    b'<Document><BkToCstmrStmt><Stmt><Ntry><Amt Ccy="JPY">-1</Amt><CdtDbtInd>CRDT</CdtDbtInd>'
    b"<BookgDt><DtTm>2025-03-01T10:00:00+09:00</DtTm></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>",
    b"<Document/>", b"<Document><Ntry>", b"",
])
gpx = (examples / "places.gpx").read_bytes()
write("gpx", [
    gpx, gpx.replace(b"\n", b"\r\n"),
    b'<gpx><wpt lat="90" lon="-180"><name>N</name></wpt><wpt lat="90" lon="-180"><name>N</name></wpt></gpx>',
    b'<gpx><wpt lat="91" lon="0"/><wpt lon="1"/><wpt lat="1e3" lon="nan"/><rte><rtept lat="1" lon="1"/></rte></gpx>',
    b'<?xml version="1.0" encoding="ISO-8859-1"?><gpx><wpt lat="1" lon="2"><name>caf\xe9</name><sym>s</sym></wpt></gpx>',
    b'<?xml version="1.0" encoding="EBCDIC"?><gpx/>', b"<gpx><wpt", b"<kml/>", b"",
])

# Location histories: every example of Data/examples/positions/, and the rules the readers
# check (E7 range, degree strings, offsets, recorder lines, nesting).
positions = sorted((examples / "positions").iterdir())
write("positions", [p.read_bytes() for p in positions] + [
    '{"locations":[{"latitudeE7":1800000001,"longitudeE7":0,"timestamp":"2026-03-05T06:10:00Z"}]}',
    '{"locations":[{"latitudeE7":601699000,"longitudeE7":249384000,"timestampMs":"9223372036854775807"}]}',
    '{"semanticSegments":[{"startTime":"2026-03-05T08:40:00+02:00","endTime":"2026-03-05T08:00:00+02:00"}]}',
    '{"rawSignals":[{"position":{"LatLng":"-90.0°, 180.0°","accuracyMeters":0,"timestamp":"2026-03-05T08:40:00Z"}}]}',
    '[{"startTime":"2026-03-05T08:40:00Z","endTime":"2026-03-05T09:00:00Z","timelinePath":[{"point":"geo:60.1,24.9","durationMinutesOffsetFromStartTime":"1e300"}]}]',
    '2026-03-05T06:45:00Z\t*\t{"_type":"location","lat":60.1,"lon":24.9,"tst":9223372036854775}\n',
    '{"locations":' + "[" * 70 + "]" * 70 + "}",
    "time,lat,lon\n1772693100,91,0\n",
])
