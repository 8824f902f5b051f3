#!/usr/bin/env python3
"""Receipt photos with their ground truth, for `make eval-receipts` (issue 42) and the test fixtures.

German, Finnish and English shops of several kinds print a till receipt (items, quantity and
weight lines, deposits, discounts, the total, card or cash payment, the VAT table, date and time
in the shop's own format); the receipt is rendered in a monospace till font and photographed in
one of three sets:

  clean  straight, even light, sharp, PNG
  phone  tilt, perspective, uneven light, mild blur, JPEG
  hard   faded thermal print, strong blur, noise, crumples, JPEG

Each image NAME.jpg/.png gets NAME.json: store (name, street, postcode, city, phone), date
(YYYY-MM-DD), time, total (decimal string), currency, items [{name, quantity, price}], set.
A fixed seed makes the same files every time.

  scripts/receipts/generate.py --out DIR [--per-set 40] [--sets clean,phone,hard] [--seed 42]
"""

import argparse
import json
import math
import os
import random
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
PHOTO = (1512, 2016)  # a 3-megapixel phone photo, portrait
WIDTH = 38  # characters a line

CENT = Decimal("0.01")
TAMPER = [Decimal(0)]

SHOPS = {
    "de": [
        ("Frischmarkt Hoffmann", "grocery", "Hauptstraße 12", "10115", "Berlin", "030 4471230"),
        ("Bäckerei Lindner", "bakery", "Marktplatz 3", "80331", "München", "089 2604417"),
        ("Drogerie Kessler", "pharmacy", "Bahnhofstraße 27", "50667", "Köln", "0221 913388"),
        ("Baumarkt Krüger", "hardware", "Industrieweg 8", "20095", "Hamburg", "040 3318820"),
        ("Café Sonnenschein", "cafe", "Lindenallee 5", "04109", "Leipzig", "0341 2231190"),
    ],
    "fi": [
        ("Lähikauppa Aalto", "grocery", "Mannerheimintie 45", "00250", "Helsinki", "09 4542210"),
        ("Leipomo Virtanen", "bakery", "Hämeenkatu 14", "33100", "Tampere", "03 2127780"),
        ("Apteekki Koivu", "pharmacy", "Aleksanterinkatu 9", "00100", "Helsinki", "09 6221540"),
        ("Rautakauppa Nieminen", "hardware", "Teollisuustie 3", "20380", "Turku", "02 2514400"),
        ("Kahvila Sävel", "cafe", "Kauppakatu 21", "40100", "Jyväskylä", "014 3310025"),
    ],
    "en": [
        ("Corner Grocer", "grocery", "12 High Street", "SW1A 1AA", "London", "020 7946 0321"),
        ("Oakfield Bakery", "bakery", "4 Mill Lane", "OX1 2JD", "Oxford", "01865 722104"),
        ("Green Cross Pharmacy", "pharmacy", "88 King Street", "M2 4WU", "Manchester", "0161 4960 118"),
        ("Hartley Hardware", "hardware", "7 Station Road", "LS1 4DY", "Leeds", "0113 4960 552"),
        ("The Daily Grind", "cafe", "21 Bridge Street", "CB2 1UF", "Cambridge", "01223 760 441"),
    ],
}

PRODUCTS = {
    "de": {
        "grocery": ["Vollmilch 3,5% 1L", "Butter 250g", "Gouda jung", "Bio Eier 10er", "Roggenbrot", "Joghurt Natur",
                    "Spaghetti 500g", "Tomaten passiert", "Apfelsaft 1L", "Kaffee gemahlen", "Haferflocken", "Mineralwasser"],
        "bakery": ["Brezel", "Roggenbrötchen", "Laugenstange", "Apfelstrudel", "Mohnschnecke", "Vollkornbrot",
                   "Croissant", "Bienenstich"],
        "pharmacy": ["Zahnpasta Mint", "Duschgel Sport", "Handcreme", "Shampoo Kamille", "Taschentücher",
                     "Sonnencreme LSF30", "Wattepads", "Deo Roller"],
        "hardware": ["Schrauben 4x40", "Dübel 8mm", "Klebeband", "Glühbirne LED", "Malerrolle", "Arbeitshandschuhe",
                     "Kabelbinder", "Holzleim"],
        "cafe": ["Cappuccino", "Milchkaffee", "Espresso", "Käsekuchen", "Latte Macchiato", "Butterbreze",
                 "Tee Pfefferminz", "Apfelschorle"],
    },
    "fi": {
        "grocery": ["Maito 1l", "Voi 500g", "Ruisleipä", "Kananmunat 10kpl", "Juustoviipaleet", "Jogurtti mansikka",
                    "Kahvi 500g", "Kaurahiutaleet", "Appelsiinimehu", "Makaroni 400g", "Karjalanpiirakka", "Kivennäisvesi"],
        "bakery": ["Korvapuusti", "Ruislimppu", "Munkki", "Sämpylä", "Pulla", "Voisilmäpulla", "Kaurakeksi",
                   "Mustikkapiirakka"],
        "pharmacy": ["Hammastahna", "Käsirasva", "Sampoo", "Nenäliinat", "Aurinkovoide", "Laastari", "Huulirasva",
                     "Vitamiini D"],
        "hardware": ["Ruuvit 4x40", "Maalarinteippi", "LED-lamppu", "Maalitela", "Työkäsineet", "Nippuside",
                     "Puuliima", "Jatkojohto"],
        "cafe": ["Cappuccino", "Suodatinkahvi", "Espresso", "Juustokakku", "Tee", "Kanelipulla", "Latte", "Mehu"],
    },
    "en": {
        "grocery": ["Semi Skimmed Milk", "Salted Butter", "Cheddar Mature", "Free Range Eggs", "Wholemeal Bread",
                    "Greek Yoghurt", "Penne Pasta", "Chopped Tomatoes", "Orange Juice", "Ground Coffee", "Porridge Oats",
                    "Sparkling Water"],
        "bakery": ["Sourdough Loaf", "Sausage Roll", "Cheese Scone", "Cinnamon Bun", "Bagel", "Flapjack",
                   "Iced Bun", "Granary Roll"],
        "pharmacy": ["Toothpaste", "Shower Gel", "Hand Cream", "Shampoo", "Tissues", "Sun Cream SPF30", "Plasters",
                     "Paracetamol"],
        "hardware": ["Wood Screws", "Wall Plugs", "Duct Tape", "LED Bulb", "Paint Roller", "Work Gloves", "Cable Ties",
                     "Wood Glue"],
        "cafe": ["Flat White", "Americano", "Espresso", "Carrot Cake", "Latte", "Toasted Teacake", "Breakfast Tea",
                 "Hot Chocolate"],
    },
}

LOOSE = {"de": ["Bananen", "Äpfel Elstar", "Tomaten", "Kartoffeln"], "fi": ["Banaani", "Omena", "Tomaatti", "Peruna"],
         "en": ["Bananas", "Apples", "Tomatoes", "Potatoes"]}

# Locale: total word, card, cash, change, deposit, discount, VAT head, rates (reduced, standard)
WORDS = {
    "de": dict(total="SUMME", card="Karte", cash="Bar", change="Rückgeld", deposit="Pfand", discount="Rabatt",
               vat=("MwSt", "Netto", "MwSt", "Brutto"), rates=(Decimal(7), Decimal(19)), currency="EUR",
               thanks="Vielen Dank für Ihren Einkauf"),
    "fi": dict(total="YHTEENSÄ", card="Pankkikortti", cash="Käteinen", change="Takaisin", deposit="Pantti",
               discount="Alennus", vat=("ALV", "Veroton", "Vero", "Verollinen"), rates=(Decimal(14), Decimal("25.5")),
               currency="EUR", thanks="Kiitos käynnistä"),
    "en": dict(total="TOTAL", card="CARD", cash="CASH", change="CHANGE", deposit=None, discount="Discount",
               vat=("VAT", "Net", "VAT", "Gross"), rates=(Decimal(0), Decimal(20)), currency="GBP",
               thanks="Thank you for shopping"),
}


def money(d):
    return d.quantize(CENT, rounding=ROUND_HALF_UP)


def fmt(d, locale):
    s = f"{money(d):.2f}"
    return s if locale == "en" else s.replace(".", ",")


def line(left, right, width=WIDTH):
    space = max(1, width - len(left) - len(right))
    return left + " " * space + right


def make_receipt(rng, locale):
    name, kind, street, postcode, city, phone = rng.choice(SHOPS[locale])
    w = WORDS[locale]
    reduced, standard = w["rates"]
    lines = []
    header = [name, street, f"{postcode} {city}" if locale != "en" else f"{city} {postcode}",
              {"de": "Tel. ", "fi": "Puh. ", "en": "Tel "}[locale] + phone]
    items = []  # name, quantity, price, vat letter
    n = rng.randint(3, 9)
    names = rng.sample(PRODUCTS[locale][kind], min(n, len(PRODUCTS[locale][kind])))
    body = []
    for product in names:
        letter = "A" if (kind in ("grocery", "bakery", "cafe") and rng.random() < 0.8) else "B"
        r = rng.random()
        unit = Decimal(rng.randint(29, 1299)) / 100
        if r < 0.2:
            q = rng.randint(2, 4)
            price = unit * q
            body.append(line(product, f"{fmt(price, locale)} {letter}"))
            body.append(f"  {q} x {fmt(unit, locale)}")
            items.append((product, q, price, letter))
        else:
            body.append(line(product, f"{fmt(unit, locale)} {letter}"))
            items.append((product, 1, unit, letter))
        if kind == "grocery" and locale != "en" and rng.random() < 0.15 and w["deposit"]:
            dep = Decimal("0.25") if locale == "de" else Decimal("0.20")
            body.append(line(w["deposit"], f"{fmt(dep, locale)} A"))
            items.append((w["deposit"], 1, dep, "A"))
    if kind == "grocery" and rng.random() < 0.5:
        loose = rng.choice(LOOSE[locale])
        kg = Decimal(rng.randint(150, 1900)) / 1000
        per = Decimal(rng.randint(99, 499)) / 100
        price = money(kg * per)
        unit = "EUR/kg" if locale != "en" else "GBP/kg"
        body.append(line(loose, f"{fmt(price, locale)} A"))
        body.append(f"  {kg:.3f} kg x {fmt(per, locale)} {unit}".replace(".", "," if locale != "en" else ".", 1)
                    .replace(f" {per:.2f} ", f" {fmt(per, locale)} "))
        items.append((loose, float(kg), price, "A"))
    if rng.random() < 0.3:
        sub = sum(p for _, _, p, _ in items)
        off = money(sub * Decimal(rng.choice([5, 10])) / 100)
        # Taken off the VAT group with the most in it, so no VAT row goes negative.
        letter = max("AB", key=lambda l: sum((p for _, _, p, x in items if x == l), Decimal(0)))
        if off > 0:
            body.append(line(w["discount"], f"-{fmt(off, locale)} {letter}"))
            items.append((w["discount"], 1, -off, letter))
    total = sum(p for _, _, p, _ in items)
    lines += header + [""] + body
    lines.append("-" * WIDTH)
    cur = "EUR" if locale != "en" else "GBP"
    printed = total + TAMPER[0]  # a till that prints a wrong total (the fixtures' test of `ok`)
    # German tills name the currency on the total line, British ones print the pound sign.
    total_text = fmt(printed, locale) if locale != "en" else "£" + fmt(printed, locale)
    lines.append(line(f"{w['total']} {cur}" if locale == "de" else w["total"], total_text))
    if rng.random() < 0.6:
        lines.append(line(w["card"], fmt(printed, locale)))
    else:
        given = money(Decimal(math.ceil(float(total) / 5) * 5)) if total > 0 else total
        if given == total:
            given += 5
        lines.append(line(w["cash"], fmt(given, locale)))
        lines.append(line(w["change"], fmt(given - total, locale)))
    lines.append("")
    # VAT table: one row per letter used, gross is the letter's items.
    head = w["vat"]
    lines.append(f"{head[0]:<9}{head[1]:>9}{head[2]:>9}{head[3]:>11}")
    for letter, rate in (("A", reduced), ("B", standard)):
        gross = sum((p for _, _, p, l in items if l == letter), Decimal(0))
        if not any(l == letter for *_, l in items):
            continue
        tax = money(gross * rate / (100 + rate))
        rate_text = (f"{rate:g}%" if locale == "en" else f"{rate:g}%".replace(".", ","))
        lines.append(f"{letter} {rate_text:<7}{fmt(gross - tax, locale):>9}{fmt(tax, locale):>9}{fmt(gross, locale):>11}")
    lines.append("")
    year = rng.choice([2023, 2024, 2025])
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    hh, mm = rng.randint(7, 21), rng.randint(0, 59)
    style = rng.random()
    if locale == "de":
        date_text = f"{day:02d}.{month:02d}.{year}" if style < 0.7 else f"{day:02d}.{month:02d}.{year % 100:02d}"
        when = f"{date_text} {hh:02d}:{mm:02d}"
    elif locale == "fi":
        date_text = f"{day}.{month}.{year}" if style < 0.6 else f"{year}-{month:02d}-{day:02d}"
        when = f"{date_text} klo {hh:02d}.{mm:02d}" if style < 0.6 else f"{date_text} {hh:02d}:{mm:02d}"
    else:
        date_text = f"{day:02d}/{month:02d}/{year % 100:02d}" if style < 0.6 else f"{year}-{month:02d}-{day:02d}"
        when = f"{date_text} {hh:02d}:{mm:02d}"
    lines.append(line(when, f"Bon {rng.randint(1000, 9999)}"))
    lines.append(w["thanks"])
    truth = {
        "store": {"id": shop_id(locale, name), "name": name, "kind": kind, "street": street, "postcode": postcode, "city": city, "phone": phone},
        "locale": locale, "date": f"{year}-{month:02d}-{day:02d}", "time": f"{hh:02d}:{mm:02d}",
        "total": f"{money(total):.2f}", "currency": cur,
        "items": [{"name": n, "quantity": q, "price": f"{money(p):.2f}"} for n, q, p, _ in items],
        "text": "\n".join(lines),
    }
    return lines, truth


def render_paper(lines, rng, faded=False):
    size = 34
    font = ImageFont.truetype(FONT, size)
    bold = ImageFont.truetype(FONT_BOLD, int(size * 1.15))
    char_w = font.getbbox("M")[2]
    pitch = int(size * 1.35)
    margin = 40
    w = char_w * WIDTH + 2 * margin
    h = pitch * (len(lines) + 2) + 2 * margin
    paper = Image.new("L", (w, h), 248)
    d = ImageDraw.Draw(paper)
    ink = 20
    for i, text in enumerate(lines):
        y = margin + i * pitch
        if i == 0:
            tw = d.textlength(text, font=bold)
            d.text(((w - tw) / 2, y - 4), text, font=bold, fill=ink)
        elif i < 4:
            tw = d.textlength(text, font=font)
            d.text(((w - tw) / 2, y), text, font=font, fill=ink)
        else:
            d.text((margin, y), text, font=font, fill=ink)
    if faded:
        a = np.asarray(paper).astype(np.float32)
        # Thermal print fades unevenly: ink lightens towards a gray that varies along the paper.
        fade = rng.uniform(0.45, 0.65)
        yy = np.linspace(0, 1, a.shape[0])[:, None]
        patch = fade + 0.15 * np.sin(yy * rng.uniform(3, 8) + rng.uniform(0, 6))
        a = 248 - (248 - a) * (1 - patch)
        paper = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    return paper


def photograph(paper, rng, kind):
    """Lays the paper on a desk and takes the picture."""
    W, H = PHOTO
    # The paper fills 70–90% of the frame's height or width, whichever binds.
    fill = rng.uniform(0.72, 0.9) if kind != "clean" else 0.86
    scale = min(W * fill / paper.width, H * fill / paper.height)
    paper = paper.resize((int(paper.width * scale), int(paper.height * scale)), Image.LANCZOS)
    if kind == "hard":
        paper = crumple(paper, rng)
    pw, ph = paper.size
    desk = rng.randint(40, 110)
    bg = np.full((H, W), desk, np.float32) + np_rng(rng).normal(0, 6, (H, W))
    photo = Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8))
    x0, y0 = (W - pw) // 2 + rng.randint(-20, 20), (H - ph) // 2 + rng.randint(-20, 20)
    corners = [(x0, y0), (x0 + pw, y0), (x0 + pw, y0 + ph), (x0, y0 + ph)]
    if kind != "clean":
        angle = math.radians(rng.uniform(-6, 6))
        cx, cy = W / 2, H / 2
        j = 0.035
        corners = [(cx + (x - cx) * math.cos(angle) - (y - cy) * math.sin(angle) + rng.uniform(-j, j) * pw,
                    cy + (x - cx) * math.sin(angle) + (y - cy) * math.cos(angle) + rng.uniform(-j, j) * ph)
                   for x, y in corners]
    # Paper → photo by a perspective map (PIL wants photo → paper coefficients).
    coeffs = perspective_coeffs(corners, [(0, 0), (pw, 0), (pw, ph), (0, ph)])
    warped = paper.transform((W, H), Image.PERSPECTIVE, coeffs, Image.BICUBIC, fillcolor=0)
    mask = Image.new("L", paper.size, 255).transform((W, H), Image.PERSPECTIVE, coeffs, Image.BILINEAR, fillcolor=0)
    photo.paste(warped, (0, 0), mask)
    a = np.asarray(photo).astype(np.float32)
    if kind != "clean":
        # Uneven light: a gradient across the frame and a soft shadow.
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        gx, gy = rng.uniform(-1, 1), rng.uniform(-1, 1)
        light = 1 - rng.uniform(0.15, 0.35) * (0.5 + 0.5 * (gx * (xx / W - 0.5) + gy * (yy / H - 0.5)) * 2) / 2
        sx, sy = rng.uniform(0, W), rng.uniform(0, H)
        shadow = 1 - rng.uniform(0.1, 0.25) * np.exp(-(((xx - sx) / (W * 0.4)) ** 2 + ((yy - sy) / (H * 0.3)) ** 2))
        a = a * light * shadow
    if kind == "hard":
        a = a + np_rng(rng).normal(0, rng.uniform(8, 14), a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    blur = {"clean": 0, "phone": rng.uniform(0.6, 1.3), "hard": rng.uniform(1.6, 2.4)}[kind]
    if blur:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    # A colour photo: the desk slightly warm, the paper neutral.
    rgb = Image.merge("RGB", (img.point(lambda v: min(255, int(v * 1.04))), img, img.point(lambda v: int(v * 0.95))))
    return rgb


def crumple(paper, rng):
    """Creases: a smooth random displacement of the paper and shading along the folds."""
    w, h = paper.size
    step = 120
    mesh = []
    gx, gy = w // step + 2, h // step + 2
    disp = [[(rng.uniform(-3, 3), rng.uniform(-3, 3)) for _ in range(gx + 1)] for _ in range(gy + 1)]
    for j in range(gy):
        for i in range(gx):
            x0, y0, x1, y1 = i * step, j * step, min(w, (i + 1) * step), min(h, (j + 1) * step)
            if x0 >= w or y0 >= h:
                continue
            quad = []
            for (ii, jj, x, y) in ((i, j, x0, y0), (i, j + 1, x0, y1), (i + 1, j + 1, x1, y1), (i + 1, j, x1, y0)):
                dx, dy = disp[jj][ii]
                quad += [x + dx, y + dy]
            mesh.append(((x0, y0, x1, y1), quad))
    out = paper.transform(paper.size, Image.MESH, mesh, Image.BICUBIC, fillcolor=248)
    a = np.asarray(out).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(rng.randint(2, 4)):
        ang = rng.uniform(0, math.pi)
        off = rng.uniform(-0.3, 0.3) * (w + h)
        dist = (xx - w / 2) * math.cos(ang) + (yy - h / 2) * math.sin(ang) - off
        a = a * (1 - 0.12 * np.exp(-(dist / 6) ** 2)) * (1 - 0.05 * np.tanh(dist / 80))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def perspective_coeffs(dst, src):
    """Coefficients PIL's PERSPECTIVE transform needs to map output points `dst` to input `src`."""
    m = []
    for (x, y), (u, v) in zip(dst, src):
        m.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        m.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.array(m, dtype=np.float64)
    b = np.array([c for p in src for c in p], dtype=np.float64)
    return np.linalg.solve(a, b).tolist()


_np = {}


def np_rng(rng):
    # numpy's generator seeded from the receipt's own: the same image every run.
    return np.random.default_rng(rng.randint(0, 2**31))


def shop_id(locale, name):
    return f"{locale}-" + "".join(c for c in name.lower() if c.isalnum())[:24]


def write_registry(path):
    """The store registry the scan matches headers into (`--stores`): every shop, and for each a
    decoy of a like name elsewhere, so a match must be more than the nearest name."""
    rows = ["id,name,kind,brand,street,postcode,city,country,lat,lon"]
    for locale, shops in SHOPS.items():
        country = {"de": "DE", "fi": "FI", "en": "GB"}[locale]
        for i, (name, kind, street, postcode, city, phone) in enumerate(shops):
            rows.append(f"{shop_id(locale, name)},{name},shop:{kind},,{street},{postcode},{city},{country},{50 + i / 10},{10 + i / 10}")
            decoy = name[:-1] + ("s" if name[-1] != "s" else "n")
            rows.append(f"{shop_id(locale, decoy)}-x,{decoy},shop:{kind},,Andere Straße 1,99999,Elsewhere,{country},{51 + i / 10},{11 + i / 10}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-set", type=int, default=40)
    ap.add_argument("--sets", default="clean,phone,hard")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--first", type=int, default=0, help="start numbering here (fixtures use other numbers)")
    ap.add_argument("--quality", type=int, default=0, help="JPEG quality (0: 70–90 at random)")
    ap.add_argument("--scale", type=float, default=1.0, help="photo size factor (fixtures are smaller)")
    ap.add_argument("--tamper", default="0", help="print the total (and card payment) off by this much")
    ap.add_argument("--prefix", default="", help="file name prefix")
    args = ap.parse_args()
    TAMPER[0] = Decimal(args.tamper)
    locales = ["de", "fi", "en"]
    os.makedirs(args.out, exist_ok=True)
    write_registry(os.path.join(args.out, "stores.csv"))
    for kind in args.sets.split(","):
        os.makedirs(os.path.join(args.out, kind), exist_ok=True)
        for k in range(args.first, args.first + args.per_set):
            rng = random.Random(f"{args.seed}-{kind}-{k}")
            locale = locales[k % 3]
            lines, truth = make_receipt(rng, locale)
            paper = render_paper(lines, rng, faded=(kind == "hard"))
            photo = photograph(paper, rng, kind)
            if args.scale != 1.0:
                photo = photo.resize((int(photo.width * args.scale), int(photo.height * args.scale)), Image.LANCZOS)
            base = os.path.join(args.out, kind, f"{args.prefix}{kind}-{k:03d}-{locale}")
            truth["set"] = kind
            if TAMPER[0]:
                truth["printed_total"] = f"{Decimal(truth['total']) + TAMPER[0]:.2f}"
            if kind == "clean":
                photo.save(base + ".png", optimize=True)
                truth["image"] = os.path.basename(base) + ".png"
            else:
                q = args.quality or rng.randint(70, 90)
                photo.save(base + ".jpg", quality=q)
                truth["image"] = os.path.basename(base) + ".jpg"
            with open(base + ".json", "w", encoding="utf-8") as f:
                json.dump(truth, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
