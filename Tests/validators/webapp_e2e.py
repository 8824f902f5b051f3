"""The web app (`geospend serve`, `/`) in Debian's headless Chromium, driven by Selenium through
chromium-driver: signs in with `/#token=…`, waits (bounded) for the app's ready mark, and prints
what it saw as JSON for the Swift test (WebAppBrowserTests) to assert against the CLI.

    webapp_e2e.py --url http://127.0.0.1:PORT --token TOKEN --month 2025-03 [--size 390x844]
                  [--confirm] [--axe] [--screenshot FILE]

Observed: the address after sign-in, the `data-figure` values, the basemap pane's feature
count and drawn paths, the month's drawn features, the `geospend-ready` mark with Navigation
Timing, the page's visible text and DOM, the browser console's errors (CSP violations show
there), axe-core's serious and critical violations per screen (--axe), and with --confirm the
review screen's first expense confirmed at its first candidate store with one click.
Every wait has a timeout; nothing is timed against a bound here.
"""
import argparse
import json
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 60  # seconds, for each wait: a loaded 2-core machine, never a bound on speed


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                 f"--window-size={width},{height}", "--no-first-run", "--disable-extensions", "--lang=en-US"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    # The layout viewport exactly, whatever the window's decorations take.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    return driver


def wait_for(driver, script, what):
    try:
        WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: d.execute_script(script))
    except TimeoutException:
        raise SystemExit(f"timed out after {WAIT} s waiting for {what}; status: "
                         + str(driver.execute_script("return document.getElementById('status')?.textContent")))


def await_confirmation(driver, seen, expense, store, what):
    """Waits until the review list marks `expense` confirmed at `store`; records it and the
    review count then in `seen`."""
    wait_for(driver, f"return document.querySelector('#review li[data-expense=\"{expense}\"]')?.dataset.confirmed === {json.dumps(store)}",
             what)
    seen["confirmed"] = {"expense": expense, "store": store}
    seen["review_count_after"] = driver.execute_script(
        "return document.querySelector('[data-figure=\"review-count\"]').textContent")


def axe(driver):
    """axe-core's serious and critical violations on the page as it is (axe-selenium-python)."""
    from axe_selenium_python import Axe
    a = Axe(driver)
    a.inject()
    results = a.run()
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]}
            for v in results["violations"] if v.get("impact") in ("serious", "critical")]


FOCUS_SHOWN = """const e = document.activeElement, s = getComputedStyle(e);
    return e.matches(':focus-visible') && s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2"""


def tab_to(driver, selector, what, limit=250, backwards=False):
    """Tab (Shift+Tab backwards) until the focused element matches `selector`; how many it took."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    for n in range(1, limit + 1):
        if backwards:
            ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.matches(arguments[0])", selector):
            return n
    raise SystemExit(f"{limit} Tabs never reached {what} ({selector})")


def keyboard_flow(driver):
    """Keyboard only, from the signed-in first screen: Tab to the Review tab, Enter; Tab to the
    first candidate's button, Space confirms it; Tab to the Shop tab, Enter. At each stop the
    focused element shows a visible outline (:focus-visible)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    out = {"stops": []}
    driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")

    def stop(name):
        out["stops"].append({"at": name, "focus_visible": driver.execute_script(FOCUS_SHOWN),
                             "element": driver.execute_script("const e = document.activeElement; return e.id || e.className || e.tagName")})

    out["tabs_to_review"] = tab_to(driver, "#tab-review", "the Review tab")
    stop("review tab")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait_for(driver, "return document.getElementById('review').dataset.loaded === 'true'", "the review list (keyboard)")
    out["tabs_to_confirm"] = tab_to(driver, "#review li.review-item .confirm", "a candidate's button")
    stop("confirm button")
    expense = driver.execute_script("return document.activeElement.closest('li').dataset.expense")
    store = driver.execute_script("return document.activeElement.dataset.store")
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    wait_for(driver, f"return document.querySelector('#review li[data-expense=\"{expense}\"]')?.dataset.confirmed === {json.dumps(store)}",
             "the keyboard confirmation")
    out["confirmed"] = {"expense": expense, "store": store}
    # Back up to the screens' tabs (the confirmed row's button is gone: focus goes on from there).
    tab_to(driver, "#tab-shop", "the Shop tab", backwards=True)
    stop("shop tab")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait_for(driver, "return !document.getElementById('screen-shop').hidden", "the shop screen (keyboard)")
    out["shop_shown"] = True
    return out


def shop_screen(driver, args):
    """The Shop tab: the chosen list's items, the basket within the circle ranked, the first
    item checked off at the typed price."""
    from selenium.webdriver.support.ui import Select
    driver.find_element(By.ID, "tab-shop").click()
    wait_for(driver, "return document.getElementById('shop-items').dataset.loaded === 'true'", "the shopping list")
    Select(driver.find_element(By.ID, "shop-radius")).select_by_value(args.shop_radius)
    out = {"list": driver.execute_script("return document.getElementById('shop-list').value"),
           "centre": driver.execute_script("return document.getElementById('shop-map').dataset.centre"),
           "radius": driver.execute_script("return document.getElementById('shop-radius').value"),
           "circle": len(driver.find_elements(By.CSS_SELECTOR, "#shop-map path.shop-circle"))}
    driver.find_element(By.ID, "shop-find").click()
    wait_for(driver, "return document.getElementById('shop-stores').dataset.loaded === 'true'", "the ranked stores")
    out["ranked"] = driver.execute_script(
        "return [...document.querySelectorAll('#shop-stores li')].map(li => [li.dataset.store, li.dataset.total, li.textContent])")
    out["markers"] = driver.execute_script("return [...document.querySelectorAll('#shop-map .ranked-store')].map(m => m.dataset.store)")
    out["result"] = driver.find_element(By.ID, "shop-result").text
    out["axe"] = axe(driver) if args.axe else None
    row = driver.find_element(By.CSS_SELECTOR, "#shop-items li.shop-item[data-checked=false]")
    item = row.get_attribute("data-item")
    row.find_element(By.CSS_SELECTOR, "input.price").send_keys(args.shop_price)
    row.find_element(By.CSS_SELECTOR, "button").click()
    wait_for(driver, f"return document.querySelector('#shop-items li[data-item={json.dumps(item)}]')?.dataset.checked === 'true'", "the check")
    out["checked"] = {"item": item, "price": args.shop_price,
                      "said": driver.execute_script(f"return document.querySelector('#shop-items li[data-item={json.dumps(item)}]').textContent")}
    out["overflow"] = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    return out


def fill(driver, element_id, text):
    e = driver.find_element(By.ID, element_id)
    e.clear()
    e.send_keys(text)


def set_date(driver, element_id, value):
    # A date or time input takes keys in the locale's order: set it as a script would, then tell the page.
    driver.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('input', {bubbles: true}))",
                          element_id, value)


def add_screen(driver, args):
    """Two expenses (the device's position through the DevTools override; a click on the map),
    a receipt photo, a refused and an accepted statement: what the page said after each."""
    from selenium.webdriver.common.action_chains import ActionChains
    out = {}
    lat, lon = (float(x) for x in args.geolocation.split(","))
    origin = driver.execute_script("return location.origin")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": lat, "longitude": lon, "accuracy": 10})
    driver.find_element(By.ID, "tab-add").click()
    wait_for(driver, "return !document.getElementById('screen-add').hidden", "the add screen")
    out["axe"] = axe(driver) if args.axe else None

    def expense(amount, note, where):
        fill(driver, "add-amount", amount)
        fill(driver, "add-currency", "EUR")
        fill(driver, "add-category", "Food")
        set_date(driver, "add-date", "2025-03-20")
        set_date(driver, "add-time", "09:15")
        fill(driver, "add-note", note)
        where()
        position = driver.execute_script("const p = document.getElementById('add-position').dataset; return p.lat ? [Number(p.lat), Number(p.lon)] : null")
        driver.find_element(By.CSS_SELECTOR, "#add-expense button[type=submit]").click()
        wait_for(driver, "const r = document.getElementById('add-result'); return !!r.dataset.expense || r.textContent.startsWith('Not')", "the added expense")
        return {"id": driver.execute_script("return document.getElementById('add-result').dataset.expense || null"),
                "said": driver.find_element(By.ID, "add-result").text, "position": position}

    def from_device():
        driver.find_element(By.ID, "add-locate").click()
        wait_for(driver, "return !!document.getElementById('add-position').dataset.lat || /no position \\(/.test(document.getElementById('add-position').textContent)", "the device's position")

    def from_map():
        driver.find_element(By.ID, "add-unplace").click()
        m = driver.find_element(By.ID, "add-map")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", m)
        ActionChains(driver).move_to_element_with_offset(m, 40, -30).click().perform()
        wait_for(driver, "return !!document.getElementById('add-position').dataset.lat", "the map click's position")

    out["device"] = expense("12.34", "webapp e2e: device position", from_device)
    out["map"] = expense("5.60", "webapp e2e: map click", from_map)
    if args.photo:
        driver.find_element(By.ID, "receipt-file").send_keys(args.photo)
        if args.photo_store:
            fill(driver, "receipt-store", args.photo_store)
        driver.find_element(By.CSS_SELECTOR, "#add-receipt button[type=submit]").click()
        wait_for(driver, "const r = document.getElementById('receipt-result'); return !!r.dataset.receipt || r.textContent.startsWith('Not')", "the uploaded receipt")
        out["receipt"] = driver.execute_script("""const r = document.getElementById('receipt-result'), b = document.getElementById('receipt-progress');
            return { id: r.dataset.receipt || null, status: r.dataset.status || null, said: r.textContent, progress: b.value, done: b.dataset.done === 'true' }""")
    for key, path in (("import_bad", args.import_bad), ("import_good", args.import_good)):
        if not path:
            continue
        Select = __import__("selenium.webdriver.support.ui", fromlist=["Select"]).Select
        Select(driver.find_element(By.ID, "import-kind")).select_by_value("csv")
        driver.find_element(By.ID, "import-file").send_keys(path)
        driver.find_element(By.CSS_SELECTOR, "#add-import button[type=submit]").click()
        wait_for(driver, "return !!document.getElementById('import-result').dataset.outcome", "the import's outcome")
        out[key] = driver.execute_script("""const r = document.getElementById('import-result'), b = document.getElementById('import-progress');
            return { outcome: r.dataset.outcome, said: r.textContent, errors: [...document.querySelectorAll('#import-errors li')].map(e => e.textContent),
                     progress: b.value, done: b.dataset.done === 'true' }""")
    out["overflow"] = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--month", required=True)
    p.add_argument("--size", default="1280x900")
    p.add_argument("--confirm", action="store_true")
    p.add_argument("--confirm-on-map", action="store_true", help="confirm by clicking the candidate's marker")
    p.add_argument("--shop", action="store_true", help="the Shop screen: the cheapest basket, one item checked off")
    p.add_argument("--shop-price", default="1.19", help="--shop: the price typed for the first item")
    p.add_argument("--shop-radius", default="1000", help="--shop: the radius chosen, metres (500, 1000, 2000, 5000)")
    p.add_argument("--keyboard", action="store_true", help="keyboard only: review tab, confirm, shop tab")
    p.add_argument("--add", action="store_true", help="the Add screen: two expenses (device position, map click)")
    p.add_argument("--geolocation", default="60.16862,24.94125", help="lat,lon the browser reports (CDP)")
    p.add_argument("--photo", help="--add: a receipt photo to upload")
    p.add_argument("--photo-store", help="--add: the photo's store id")
    p.add_argument("--import-bad", help="--add: a statement CSV with a bad row: its refusal shown")
    p.add_argument("--import-good", help="--add: a statement CSV: imported, counts shown")
    p.add_argument("--receipt", help="a receipt waiting for review: correct its total in place")
    p.add_argument("--receipt-total", help="the total to type for --receipt")
    p.add_argument("--axe", action="store_true")
    p.add_argument("--screenshot")
    p.add_argument("--screenshot-review")
    p.add_argument("--screenshot-shop", help="the Shop screen, its basket found within 5 km")
    p.add_argument("--screenshot-add", help="the Add screen")
    p.add_argument("--ready-only", action="store_true", help="timings only (scripts/bench-webapp.sh)")
    args = p.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    driver = browser(width, height)
    seen = {}
    try:
        driver.get(f"{args.url}/#token={args.token}&month={args.month}")
        wait_for(driver, "return document.body.dataset.ready === 'true' || !!document.body.dataset.error", "the app's ready mark")
        if not args.ready_only:
            wait_for(driver, "return document.body.dataset.settled === 'true' || !!document.body.dataset.error", "budgets, alerts and reviews")
        seen["error"] = driver.execute_script("return document.body.dataset.error || null")
        seen["address"] = driver.execute_script("return location.href")
        seen["ready_marks"] = driver.execute_script(
            "return performance.getEntriesByName('geospend-ready', 'mark').map(m => m.startTime)")
        seen["marks"] = driver.execute_script(
            "return performance.getEntriesByType('mark').map(m => [m.name, Math.round(m.startTime)])")
        seen["navigation"] = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0]; return n ? n.toJSON() : null")
        if args.ready_only:
            # Let the app finish its after-ready requests (budgets, alerts, the review queue) so
            # that the next load's timings do not include this one's work on the server.
            seen["ready_at"] = time.time()
            WebDriverWait(driver, 600, poll_frequency=0.2).until(
                lambda d: d.execute_script("return document.body.dataset.settled === 'true' || !!document.body.dataset.error"))
            seen["settled_after_s"] = round(time.time() - seen.pop("ready_at"), 2)
            # Where the time went: each request's Resource Timing (ms from navigation start).
            seen["requests"] = driver.execute_script(
                "return performance.getEntriesByType('resource').map(r => [new URL(r.name).pathname, Math.round(r.startTime), Math.round(r.responseEnd)])")
            seen["drawn_points"] = driver.execute_script("return Number(document.querySelector('[data-figure=\"map\"]').dataset.features)")
            seen["month_spent"] = driver.execute_script(
                "return [...document.querySelectorAll('[data-figure=\"month-spent\"]')].map(e => [e.dataset.currency, e.textContent])")
            json.dump(seen, sys.stdout)
            return
        if args.keyboard:
            seen["keyboard"] = keyboard_flow(driver)
            seen["console"] = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
            json.dump(seen, sys.stdout)
            return
        seen["month_spent"] = driver.execute_script(
            "return [...document.querySelectorAll('[data-figure=\"month-spent\"]')].map(e => [e.dataset.currency, e.textContent])")
        seen["review_count"] = driver.execute_script(
            "return document.querySelector('[data-figure=\"review-count\"]').textContent")
        seen["map_containers"] = driver.execute_script("return document.querySelectorAll('[data-figure=\"map\"]').length")
        seen["basemap"] = driver.execute_script("""
            const pane = document.querySelector('[data-figure="map"] [data-layer="basemap"]');
            if (!pane) return null;
            // Drawn on a canvas: its pixels, and how many have each fill of the basemap's style.
            const canvas = pane.querySelector('canvas');
            const out = { features: Number(pane.dataset.features || 0), canvases: pane.querySelectorAll('canvas').length,
                          pixels: 0, painted: 0, water: 0, green: 0, building: 0 };
            if (!canvas) return out;
            const fills = { water: [0xb9, 0xd9, 0xf0], green: [0xd4, 0xeb, 0xcf], building: [0xe4, 0xdd, 0xd4] };
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            out.pixels = canvas.width * canvas.height;
            for (let i = 0; i < data.length; i += 4) {
                if (data[i + 3] === 0) continue;
                out.painted++;
                for (const [name, [r, g, b]] of Object.entries(fills)) {
                    if (data[i] === r && data[i + 1] === g && data[i + 2] === b) out[name]++;
                }
            }
            return out;""")
        seen["drawn"] = driver.execute_script("""
            const map = document.querySelector('[data-figure="map"]');
            return { points: Number(map.dataset.features), hexagons: Number(map.dataset.hexagons), places: Number(map.dataset.places),
                     device: Number(map.querySelector('canvas.expense-dots')?.dataset.device), inferred: Number(map.querySelector('canvas.expense-dots')?.dataset.inferred),
                     hexPaths: map.querySelectorAll('path.hex').length, placePaths: map.querySelectorAll('path.place').length }""")
        # A click on a dot opens its popup. The dots are drawn on one canvas: the click goes to its
        # first painted pixel (the top of the topmost dot), and the app finds the nearest dot.
        seen["dot_popup"] = driver.execute_script("""
            const canvas = document.querySelector('[data-figure="map"] canvas.expense-dots');
            if (!canvas) return null;
            const box = canvas.getBoundingClientRect(), map = document.querySelector('[data-figure="map"]').getBoundingClientRect();
            const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            let at = null;
            for (let i = 3; i < data.length && !at; i += 4) {
                const x = ((i - 3) / 4) % canvas.width, y = Math.floor((i - 3) / 4 / canvas.width);
                const cx = box.x + x * box.width / canvas.width, cy = box.y + y * box.height / canvas.height;
                if (data[i] > 200 && cx > map.x + 40 && cx < map.right - 40 && cy > map.y + 40 && cy < map.bottom - 40) at = [cx, cy + 2];
            }
            if (!at) return { text: null };
            canvas.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: at[0], clientY: at[1] }));
            const popup = document.querySelector('.leaflet-popup-content .popup');
            return popup ? { text: popup.innerText, inferred: popup.innerText.includes('position inferred') } : { text: null };""")
        seen["title"] = driver.execute_script("return document.getElementById('map-title')?.textContent")
        seen["legend"] = driver.execute_script("return document.getElementById('legend').innerText")
        seen["scale"] = driver.execute_script("return document.querySelector('.leaflet-control-scale-line')?.textContent || null")
        seen["credit"] = driver.execute_script("return document.getElementById('geospend-osm')?.textContent || null")
        seen["places"] = driver.execute_script(
            "return [...document.querySelectorAll('#places .place-name')].map(e => e.textContent)")
        seen["injected"] = driver.execute_script("return document.querySelectorAll('main img, .leaflet-popup img').length + (window.pwned ? 100 : 0)")
        if args.screenshot:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.screenshot)
        # A click on the first top place lists its expenses.
        first = driver.find_elements(By.CSS_SELECTOR, "#places .place-button")
        if first:
            first[0].click()
            wait_for(driver, "return document.querySelectorAll('#place-expenses li').length > 0", "the place's expenses")
            seen["place_expenses"] = driver.execute_script(
                "return [...document.querySelectorAll('#place-expenses li')].map(e => e.textContent)")
        seen["overflow"] = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        axe_month = axe(driver) if args.axe else None
        seen["text"] = driver.execute_script("return document.body.innerText")
        seen["html"] = driver.execute_script("return document.documentElement.outerHTML")

        # The review screen: its list, axe, and (--confirm) one click on the first candidate.
        driver.find_element(By.ID, "tab-review").click()
        wait_for(driver, "return document.getElementById('review').dataset.loaded === 'true'", "the review list")
        seen["review_items"] = driver.execute_script(
            "return [...document.querySelectorAll('#review li.review-item')].map(e => e.dataset.expense)")
        wait_for(driver, "return [...document.querySelectorAll('#receipts img.receipt-photo')].every(i => i.complete)", "the receipts' photos")
        # The chosen expense's candidate stores as markers on the review map.
        seen["review_map"] = driver.execute_script("""
            const map = document.getElementById('review-map');
            return { expense: map.dataset.expense || null, basemap: !!map.querySelector('[data-layer="basemap"]'),
                     markers: [...map.querySelectorAll('.candidate[data-store]')].map(m => [m.dataset.store, m.textContent]) }""")
        seen["receipts"] = driver.execute_script("""
            return [...document.querySelectorAll('#receipts li.receipt')].map(li => ({
                id: li.dataset.receipt, status: li.dataset.status,
                photo: (() => { const i = li.querySelector('img.receipt-photo'); return i ? { width: i.naturalWidth, src: i.src.slice(0, 5) } : null })(),
                problems: [...li.querySelectorAll('.problems li')].map(e => e.textContent),
                lines: [...li.querySelectorAll('input.price')].map(e => [Number(e.dataset.line), e.value]) }))""")
        axe_review = axe(driver) if args.axe else None
        if args.screenshot_review:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.screenshot_review)
        if args.confirm:
            button = driver.find_element(By.CSS_SELECTOR, "#review li.review-item .confirm")
            expense = driver.execute_script("return arguments[0].closest('li').dataset.expense", button)
            store = button.get_attribute("data-store")
            button.click()
            await_confirmation(driver, seen, expense, store, "the confirmation")
        if args.confirm_on_map:
            marker = driver.find_element(By.CSS_SELECTOR, "#review-map .candidate[data-store]")
            expense = driver.execute_script("return document.getElementById('review-map').dataset.expense")
            store = marker.get_attribute("data-store")
            marker.click()
            await_confirmation(driver, seen, expense, store, "the confirmation on the map")
        if args.receipt:
            row = f"#receipts li[data-receipt=\"{args.receipt}\"]"
            total = driver.find_element(By.CSS_SELECTOR, row + " input[data-field=total]")
            total.clear()
            total.send_keys(args.receipt_total)
            driver.find_element(By.CSS_SELECTOR, row + " button[data-action=save]").click()
            wait_for(driver, f"const m = document.querySelector('{row} .receipt-message'); return m && m.textContent.startsWith('Saved') || m && m.textContent.startsWith('Not')",
                     "the receipt's correction")
            seen["receipt_after"] = driver.execute_script(
                f"const li = document.querySelector('{row}'); return {{ status: li.dataset.status, message: li.querySelector('.receipt-message').textContent }}")
        if args.screenshot_shop:
            from selenium.webdriver.support.ui import Select
            driver.find_element(By.ID, "tab-shop").click()
            wait_for(driver, "return document.getElementById('shop-items').dataset.loaded === 'true'", "the shopping list")
            Select(driver.find_element(By.ID, "shop-radius")).select_by_value("5000")
            driver.find_element(By.ID, "shop-find").click()
            wait_for(driver, "return document.getElementById('shop-stores').dataset.loaded === 'true'", "the ranked stores")
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.screenshot_shop)
        if args.screenshot_add:
            driver.find_element(By.ID, "tab-add").click()
            wait_for(driver, "return !document.getElementById('screen-add').hidden", "the add screen")
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.screenshot_add)
        if args.add:
            seen["add"] = add_screen(driver, args)
        if args.shop:
            seen["shop"] = shop_screen(driver, args)
        seen["text"] += "\n" + driver.execute_script("return document.body.innerText")
        if args.axe:
            seen["axe"] = {"month": axe_month, "review": axe_review}
        seen["console"] = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    finally:
        driver.quit()
    json.dump(seen, sys.stdout)


if __name__ == "__main__":
    main()
