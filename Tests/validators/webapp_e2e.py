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


def axe(driver):
    """axe-core's serious and critical violations on the page as it is (axe-selenium-python)."""
    from axe_selenium_python import Axe
    a = Axe(driver)
    a.inject()
    results = a.run()
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]][:5]}
            for v in results["violations"] if v.get("impact") in ("serious", "critical")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--month", required=True)
    p.add_argument("--size", default="1280x900")
    p.add_argument("--confirm", action="store_true")
    p.add_argument("--axe", action="store_true")
    p.add_argument("--screenshot")
    p.add_argument("--screenshot-review")
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
        seen["month_spent"] = driver.execute_script(
            "return [...document.querySelectorAll('[data-figure=\"month-spent\"]')].map(e => [e.dataset.currency, e.textContent])")
        seen["review_count"] = driver.execute_script(
            "return document.querySelector('[data-figure=\"review-count\"]').textContent")
        seen["map_containers"] = driver.execute_script("return document.querySelectorAll('[data-figure=\"map\"]').length")
        seen["basemap"] = driver.execute_script("""
            const pane = document.querySelector('[data-figure="map"] [data-layer="basemap"]');
            return pane ? { features: Number(pane.dataset.features || 0), paths: pane.querySelectorAll('path').length,
                            drawn: [...pane.querySelectorAll('path')].filter(p => (p.getAttribute('d') || '').length > 2).length } : null""")
        seen["drawn"] = driver.execute_script("""
            const map = document.querySelector('[data-figure="map"]');
            return { points: Number(map.dataset.features), hexagons: Number(map.dataset.hexagons), places: Number(map.dataset.places),
                     device: map.querySelectorAll('path.expense.device').length, inferred: map.querySelectorAll('path.expense.inferred').length,
                     hexPaths: map.querySelectorAll('path.hex').length, placePaths: map.querySelectorAll('path.place').length }""")
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
        axe_review = axe(driver) if args.axe else None
        if args.screenshot_review:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.screenshot_review)
        if args.confirm:
            button = driver.find_element(By.CSS_SELECTOR, "#review li.review-item .confirm")
            expense = driver.execute_script("return arguments[0].closest('li').dataset.expense", button)
            store = button.get_attribute("data-store")
            button.click()
            wait_for(driver, f"return document.querySelector('#review li[data-expense=\"{expense}\"]')?.dataset.confirmed === {json.dumps(store)}",
                     "the confirmation")
            seen["confirmed"] = {"expense": expense, "store": store}
            seen["review_count_after"] = driver.execute_script(
                "return document.querySelector('[data-figure=\"review-count\"]').textContent")
        seen["text"] += "\n" + driver.execute_script("return document.body.innerText")
        if args.axe:
            seen["axe"] = {"month": axe_month, "review": axe_review}
        seen["console"] = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    finally:
        driver.quit()
    json.dump(seen, sys.stdout)


if __name__ == "__main__":
    main()
