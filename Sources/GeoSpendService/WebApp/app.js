// GeoSpend's web app (issue 41; docs/WEBAPP.md). A plain ES module, no build step; Leaflet is
// Debian's libjs-leaflet, loaded before this module as the global `L`.
//
// The token: read once from the address's fragment (`/#token=…`, never sent to the server), the
// fragment removed from the address bar at once, then kept in this module's closure only — not
// in storage, a global, a URL or a log — so a reload asks for it again.
//
// Everything that comes from the database reaches the page through `text()`/`textContent`,
// never `innerHTML`: a store or merchant named with markup shows as written.
"use strict";

const fragment = new URLSearchParams(location.hash.slice(1));
let token = fragment.get("token");
const askedMonth = fragment.get("month");
if (location.hash) history.replaceState(null, "", location.pathname + location.search);

const $ = (id) => document.getElementById(id);
const status = $("status");

/// An element with attributes and children; strings become text nodes.
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (v === undefined || v === null) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(typeof c === "string" ? document.createTextNode(c) : c);
  return node;
}

class Refused extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

/// A JSON endpoint of the service, with the token.
async function api(path, options = {}) {
  const r = await fetch(path, { ...options, headers: { ...(options.headers || {}), Authorization: "Bearer " + token } });
  if (!r.ok) {
    let detail = r.statusText;
    try { detail = (await r.json()).detail || detail; } catch { /* not a problem document */ }
    throw new Refused(r.status, detail);
  }
  return r.json();
}

// ---- months -------------------------------------------------------------------------------

const pad = (n) => String(n).padStart(2, "0");
function thisMonth() { const d = new Date(); return d.getFullYear() + "-" + pad(d.getMonth() + 1); }
function previousMonth(month) {
  const [y, m] = month.split("-").map(Number);
  return m === 1 ? (y - 1) + "-12" : y + "-" + pad(m - 1);
}
function lastDay(month) {
  const [y, m] = month.split("-").map(Number);
  return month + "-" + pad(new Date(Date.UTC(y, m, 0)).getUTCDate());
}
function today() { const d = new Date(); return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()); }
const validMonth = (m) => /^\d{4}-(0[1-9]|1[0-2])$/.test(m || "");

// ---- money ----------------------------------------------------------------------------------

/// `amount` (a number) in `currency`, as the reader's locale writes money.
function money(amount, currency, whole = false) {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency, maximumFractionDigits: whole ? 0 : undefined }).format(amount);
  } catch {
    return amount.toFixed(2) + " " + currency;
  }
}

/// Minor units of a decimal string as `summary` prints it ("243.60", "-1.5", "12"): exact.
function minor(text) {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text || "0");
  if (!m) return 0n;
  const digits = (m[3] || "").padEnd(2, "0");
  const value = BigInt(m[2]) * 100n + BigInt(digits.slice(0, 2));
  return m[1] ? -value : value;
}
function decimal(units) {
  const sign = units < 0n ? "-" : "";
  const a = units < 0n ? -units : units;
  return sign + (a / 100n) + "." + pad(Number(a % 100n));
}

// ---- the map ---------------------------------------------------------------------------------

const state = { map: null, layers: [], basemap: null, config: null, month: null };

/// Leaflet map with a bottom pane for the basemap (`data-layer="basemap"`), its own credit,
/// title and a metric scale. Made once; layers change with the month.
function makeMap(config) {
  const map = L.map("map", { attributionControl: false, zoomSnap: 0.25 }).setView([60.1715, 24.944], 15);
  const pane = map.createPane("basemap");
  pane.style.zIndex = 150;
  pane.dataset.layer = "basemap";
  L.control.scale({ imperial: false, position: "bottomleft" }).addTo(map);

  const Title = L.Control.extend({
    onAdd() { return el("div", { class: "map-title", id: "map-title" }, "GeoSpend"); },
  });
  new Title({ position: "topright" }).addTo(map);

  // The basemap's credit (ODbL asks for it wherever the data is shown), as DOM text.
  const Credit = L.Control.extend({
    onAdd() {
      const box = el("div", { class: "map-credit", id: "geospend-osm" });
      const text = config.basemap.attribution || "";
      if (config.basemap.type === "geojson" || /openstreetmap/i.test(text)) {
        box.append("Basemap and places © ",
          el("a", { href: "https://www.openstreetmap.org/copyright", rel: "noopener" }, "OpenStreetMap contributors"), ", ODbL");
        if (config.basemap.type === "tiles") box.append(" · ", text);
      } else {
        box.append(text);
      }
      return box;
    },
  });
  new Credit({ position: "bottomright" }).addTo(map);
  return map;
}

/// The basemap under everything: the operator's tiles, else the offline OpenStreetMap GeoJSON
/// (water, green, buildings, streets; drawn in file order, streets last).
async function drawBasemap(map, config) {
  const b = config.basemap;
  if (b.type === "tiles") {
    L.tileLayer(b.url, { pane: "basemap", maxZoom: 19 }).addTo(map);
    return 0;
  }
  if (!b.url) return 0;
  const r = await fetch(b.url);
  if (!r.ok) throw new Error("basemap: " + r.status);
  const doc = await r.json();
  const styles = {
    water: { color: "#7fb2d9", weight: 0.5, fillColor: "#b9d9f0", fillOpacity: 1 },
    green: { color: "#9cc79a", weight: 0.5, fillColor: "#d4ebcf", fillOpacity: 1 },
    building: { color: "#c9bfb3", weight: 0.5, fillColor: "#e4ddd4", fillOpacity: 1 },
    coastline: { color: "#7fb2d9", weight: 1.5 },
  };
  const streetWidth = { primary: 5, secondary: 4.5, tertiary: 4, residential: 3, pedestrian: 3, living_street: 3, service: 2, footway: 1.2, path: 1.2, cycleway: 1.2, steps: 1 };
  const renderer = L.svg({ pane: "basemap", padding: 0.5 });
  const layer = L.geoJSON(doc, {
    pane: "basemap",
    renderer,
    interactive: false,
    style(f) {
      const [group, sub] = String(f.properties.kind).split(":");
      if (group === "street") return { color: "#ffffff", weight: streetWidth[sub] || 2, opacity: 1 };
      return styles[group] || { color: "#bbb", weight: 0.5 };
    },
  });
  layer.addTo(map);
  map.getPane("basemap").dataset.features = String(doc.features.length);
  return doc.features.length;
}

/// Five steps from 0 to `max` (rounded up to a money-friendly number) for a legend in money.
function steps(max) {
  if (!(max > 0)) return [0, 1, 2, 3, 4, 5];
  const raw = max / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((k) => k * mag).find((s) => s >= raw);
  return [0, 1, 2, 3, 4, 5].map((i) => i * step);
}
const heatColours = ["#fff5eb", "#fdd0a2", "#fd8d3c", "#d94801", "#7f2704"];

function legend(hexCurrency, bounds, cell) {
  const box = $("legend");
  box.replaceChildren();
  const hexList = el("ul", { class: "legend-steps", id: "legend-hex" });
  for (let i = 0; i < 5; i++) {
    hexList.append(el("li", {}, el("span", { class: "swatch heat-" + i }),
      money(bounds[i], hexCurrency, true) + " – " + money(bounds[i + 1], hexCurrency, true)));
  }
  box.append(
    el("div", { class: "legend-block" }, el("strong", {}, hexCurrency + " per " + cell + " hexagon"), hexList),
    el("div", { class: "legend-block" }, el("strong", {}, "Expenses"),
      el("ul", { class: "legend-steps" },
        el("li", {}, el("span", { class: "dot device" }), "position from the device"),
        el("li", {}, el("span", { class: "dot inferred" }), "position inferred (geotag)"),
        el("li", {}, el("span", { class: "dot place" }), "place (size: money spent)"))));
}

/// The month's layers from the rollup and export endpoints /map uses: hexagons (money per cell),
/// expenses (device and inferred positions apart) and places.
async function drawMonth(month) {
  const map = state.map;
  for (const l of state.layers) map.removeLayer(l);
  state.layers = [];
  const range = "from=" + month + "-01&to=" + lastDay(month);
  const [hex, points, places] = await Promise.all([
    api("/api/v1/export/grid?cell=250m&" + range),
    api("/api/v1/export/points?" + range),
    api("/api/v1/export/places?" + range),
  ]);
  const currency = hex.geospend?.currency || points.geospend?.currency || "EUR";
  const cellMax = Math.max(0, ...hex.features.map((f) => f.properties.total || 0));
  const bounds = steps(cellMax);
  const classOf = (v) => Math.min(4, Math.floor(v / (bounds[1] || 1)));
  const hexes = L.geoJSON(hex, {
    style: (f) => ({ weight: 1, color: "#7f2704", opacity: 0.6, fillColor: heatColours[classOf(f.properties.total || 0)], fillOpacity: 0.55, className: "hex" }),
    interactive: false,
  });
  // Thousands of dots draw on one canvas (an SVG element each costs too much at 100k a year).
  const renderer = points.features.length > 2000 ? L.canvas({ padding: 0.2 }) : undefined;
  const dots = L.geoJSON(points, {
    renderer,
    pointToLayer: (f, ll) => {
      const inferred = f.properties.position_source && f.properties.position_source !== "device";
      return L.circleMarker(ll, inferred
        ? { renderer, radius: 4, color: "#542788", weight: 1.5, dashArray: "2 2", fill: false, className: "expense inferred" }
        : { renderer, radius: 3.5, color: "#542788", weight: 1, fillColor: "#542788", fillOpacity: 0.8, className: "expense device" })
        .bindPopup(() => expensePopup(f));
    },
  });
  const placeMax = Math.max(1, ...places.features.map((f) => f.properties.total || 0));
  const spots = L.geoJSON(places, {
    pointToLayer: (f, ll) => L.circleMarker(ll, {
      radius: 6 + 10 * Math.sqrt((f.properties.total || 0) / placeMax), color: "#1b7837", weight: 2, fillColor: "#5aae61", fillOpacity: 0.35, className: "place",
    }).on("click", () => showPlace(f, points)),
  });
  for (const l of [hexes, dots, spots]) { l.addTo(map); state.layers.push(l); }
  const all = L.featureGroup([dots, spots]);
  if (points.features.length) map.fitBounds(all.getBounds().pad(0.1), { maxZoom: 16 });
  legend(currency, bounds, "250 m");
  $("map-title").textContent = "GeoSpend — " + (state.who || "") + ", " + month + ", " + currency;
  topPlaces(places, points);
  $("map").dataset.features = String(points.features.length);
  $("map").dataset.hexagons = String(hex.features.length);
  $("map").dataset.places = String(places.features.length);
  return { points: points.features.length, hexagons: hex.features.length, places: places.features.length };
}

function expensePopup(f) {
  const p = f.properties;
  return el("div", { class: "popup" },
    el("strong", {}, money(p.amount, p.currency)), " at ", el("span", { class: "merchant" }, p.merchant || p.store_name || "—"),
    el("br"), p.occurred_at || "",
    p.position_source && p.position_source !== "device" ? el("div", { class: "note" }, "position inferred (" + p.position_source + ")") : null);
}

function topPlaces(places, points) {
  const list = $("places");
  list.replaceChildren();
  const sorted = [...places.features].sort((a, b) => (b.properties.total || 0) - (a.properties.total || 0)).slice(0, 8);
  if (!sorted.length) list.append(el("li", {}, "No places this month."));
  for (const f of sorted) {
    const p = f.properties;
    list.append(el("li", {},
      el("button", { type: "button", class: "place-button", onclick: () => showPlace(f, points) },
        el("span", { class: "place-name" }, p.name || "Unnamed spot (" + p.count + " visits)"),
        el("span", { class: "place-total" }, money(p.total, p.currency)))));
  }
}

/// Metres between two [lon, lat] points (haversine on a 6,371 km sphere: enough to pick a spot).
function metres(a, b) {
  const r = Math.PI / 180, dLat = (b[1] - a[1]) * r, dLon = (b[0] - a[0]) * r;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371000 * Math.asin(Math.sqrt(h));
}

/// A place's expenses: those paid at its store, or for a cluster of storeless positions those
/// without a store within 75 m of its centre (the clustering's distance).
function showPlace(f, points) {
  const p = f.properties;
  const mine = points.features.filter((x) => p.kind === "store"
    ? x.properties.store_id === p.place_id
    : !x.properties.store_id && metres(x.geometry.coordinates, f.geometry.coordinates) <= 75);
  $("place-heading").textContent = "Expenses at " + (p.name || "an unnamed spot");
  $("place-hint").textContent = mine.length + " expenses, " + money(p.total, p.currency) + " in all.";
  const list = $("place-expenses");
  list.replaceChildren(...mine.sort((a, b) => String(b.properties.occurred_at).localeCompare(String(a.properties.occurred_at)))
    .map((x) => el("li", {}, el("strong", {}, money(x.properties.amount, x.properties.currency)), " ",
      x.properties.merchant || "", " · ", String(x.properties.occurred_at || "").slice(0, 16).replace("T", " "))));
}

// ---- this month ------------------------------------------------------------------------------

function figures(summary, previous) {
  const box = $("figures");
  box.replaceChildren();
  const before = new Map((previous.currencies || []).map((c) => [c.currency, c]));
  if (!(summary.currencies || []).length) box.append(el("p", {}, "Nothing spent this month yet."));
  for (const c of summary.currencies || []) {
    const last = before.get(c.currency);
    const diff = minor(c.expenses) - minor(last ? last.expenses : "0.00");
    const comparison = last
      ? (diff === 0n ? "the same as last month" : decimal(diff < 0n ? -diff : diff) + " " + c.currency + (diff > 0n ? " more" : " less") + " than last month (" + last.expenses + ")")
      : "nothing in " + c.currency + " last month";
    box.append(el("div", { class: "figure" },
      el("span", { class: "figure-label" }, "Spent in " + c.currency),
      el("span", { class: "figure-value" },
        el("span", { "data-figure": "month-spent", "data-currency": c.currency }, c.expenses), " ", c.currency),
      el("span", { class: "figure-note" }, c.expenses_count + " expenses · " + comparison)));
  }
}

async function budgets(month) {
  const list = $("budgets");
  list.replaceChildren();
  const all = await api("/api/v1/budgets");
  const asOf = month === thisMonth() ? today() : lastDay(month);
  const active = all.filter((b) => b.active && b.from <= asOf && (!b.to || b.to >= month + "-01"));
  if (!active.length) { list.append(el("li", {}, "No budgets for this month (geospend budgets add).")); return; }
  const summaries = await Promise.all(active.map((b) => api("/api/v1/budgets/" + b.id + "/summary?as-of=" + asOf)));
  for (const s of summaries) {
    const used = Math.max(0, Math.min(100, Number(s.percentage_used) || 0));
    list.append(el("li", { class: "budget" },
      el("div", {}, el("strong", {}, s.name), " · ",
        el("span", { "data-figure": "budget-left", "data-budget": String(s.budget_id) }, s.remaining), " " + s.currency + " left of " + s.amount),
      el("progress", { max: "100", value: String(used), "aria-label": s.name + ": " + used + " % used" }),
      el("div", { class: "figure-note" }, "spent " + s.spent + " " + s.currency + " · " + s.days_remaining + " days to go"
        + (s.on_track ? "" : " · over pace: projected " + s.projected_total))));
  }
}

async function alerts() {
  const list = $("alerts");
  list.replaceChildren();
  const feed = await api("/api/v1/notifications?unread=true&limit=20");
  const items = (feed.notifications || []).slice(-6).reverse();
  if (!items.length) { list.append(el("li", {}, "Nothing new.")); return; }
  const describe = (n) => {
    const d = n.data || {};
    switch (n.type) {
      case "budget.threshold": return "Budget " + (d.name || d.budget_id || "") + " reached " + (d.threshold ?? "") + " %";
      case "reminder.due": return "Reminder: " + (d.title || d.merchant || d.expense_id || "an expense");
      case "geotag.review": return "Expenses to review: " + (d.count ?? "");
      default: return n.type.replace(/[._]/g, " ");
    }
  };
  for (const n of items) list.append(el("li", {}, el("span", { class: "when" }, String(n.created_at).slice(0, 10)), " ", describe(n)));
}

// ---- review -----------------------------------------------------------------------------------

let reviewItems = [];
async function reviewCount() {
  const review = await api("/api/v1/geotag/review");
  reviewItems = review.ambiguous || [];
  document.querySelector('[data-figure="review-count"]').textContent = String(reviewItems.length);
  return reviewItems.length;
}

async function drawReview() {
  const list = $("review");
  delete list.dataset.loaded;
  list.replaceChildren();
  if (!reviewItems.length) list.append(el("li", {}, "Nothing to review."));
  for (const item of reviewItems.slice(0, 30)) {
    const row = el("li", { class: "review-item", "data-expense": item.id });
    list.append(row);
    let expense = null;
    try { expense = await api("/api/v1/expenses/" + encodeURIComponent(item.id)); } catch { /* shown by id */ }
    row.append(el("div", {}, el("strong", {}, expense ? money(Number(expense.amount), expense.currency) : item.id), " ",
      expense ? (expense.merchant || expense.title || "") + " · " + String(expense.occurred_at || "").slice(0, 16).replace("T", " ") : ""));
    const choices = el("div", { class: "choices" });
    for (const c of item.candidates || []) {
      let name = c.store_id;
      try {
        const near = await api("/api/v1/nearest-stores?lat=" + c.lat + "&lon=" + c.lon + "&k=1");
        const first = (near.stores || [])[0];
        // Chains share names ("Alko" twice): the street tells a person which one.
        if (first && String(first.id) === String(c.store_id)) name = (first.name || name) + (first.street ? " (" + first.street + ")" : "");
      } catch { /* the id will do */ }
      choices.append(el("button", {
        type: "button", class: "confirm", "data-store": c.store_id,
        onclick: async (e) => {
          e.target.disabled = true;
          try {
            await api("/api/v1/geotag/confirm?id=" + encodeURIComponent(item.id) + "&store=" + encodeURIComponent(c.store_id), { method: "POST" });
            row.replaceChildren(el("span", { class: "done" }, "Confirmed: " + name));
            await reviewCount();
            row.dataset.confirmed = c.store_id;  // after the count: tests wait for this
          } catch (err) {
            e.target.disabled = false;
            status.textContent = "Could not confirm: " + err.message;
          }
        },
      }, "It was " + name));
    }
    row.append(choices);
  }
  list.dataset.loaded = "true";
}

// ---- screens and start -----------------------------------------------------------------------

function show(screen) {
  for (const s of ["month", "review"]) {
    $("screen-" + s).hidden = s !== screen;
    const tab = $("tab-" + s);
    if (s === screen) tab.setAttribute("aria-current", "page"); else tab.removeAttribute("aria-current");
  }
  if (screen === "month" && state.map) state.map.invalidateSize();
  if (screen === "review") drawReview().catch((e) => { status.textContent = "Review: " + e.message; });
}

async function load(month) {
  state.month = month;
  status.textContent = "Loading " + month + "…";
  $("month-heading").textContent = month === thisMonth() ? "This month" : month;
  // The figures and the map's layers are asked at once: no request waits for another.
  const [summary, previous, counts] = await Promise.all([
    api("/api/v1/summary?month=" + month), api("/api/v1/summary?month=" + previousMonth(month)), drawMonth(month),
  ]);
  figures(summary, previous);
  status.textContent = counts.points + " expenses on the map, " + counts.places + " places.";
  // Budgets, alerts and the review count follow the first screen's figures and map; `settled`
  // (on <body>) says when they are in too.
  delete document.body.dataset.settled;
  const rest = Promise.all([
    budgets(month).catch((e) => { $("budgets").replaceChildren(el("li", {}, "Budgets: " + e.message)); }),
    alerts().catch((e) => { $("alerts").replaceChildren(el("li", {}, "Alerts: " + e.message)); }),
    reviewCount().catch((e) => { document.querySelector('[data-figure="review-count"]').textContent = "?"; status.textContent = "Review: " + e.message; }),
  ]).then(() => { document.body.dataset.settled = "true"; });
  return { rest };  // wrapped: an async function returning a promise would wait for it
}

async function start() {
  const asked = fetch("/app/config.json").then((r) => r.json());
  let me;
  try {
    me = await api("/api/v1/users/me");
  } catch (e) {
    token = null;
    status.textContent = e.status === 401 ? "That token was refused: sign in again." : "Sign-in failed: " + e.message;
    $("signin").hidden = false;
    return;
  }
  state.who = me.name || me.id;
  $("who").textContent = "Signed in as " + state.who;
  $("signin").hidden = true;
  $("screen-month").hidden = false;
  const config = await asked;
  state.config = config;
  state.map = makeMap(config);
  const month = validMonth(askedMonth) ? askedMonth : thisMonth();
  $("month").value = month;
  const basemap = drawBasemap(state.map, config).catch((e) => { status.textContent = "Basemap: " + e.message; return 0; });
  const [, { rest }] = await Promise.all([basemap, load(month)]);
  performance.mark("geospend-ready");
  document.body.dataset.ready = "true";
  await rest;
}

$("signin").addEventListener("submit", (e) => {
  e.preventDefault();
  token = $("token-input").value.trim();
  $("token-input").value = "";
  if (token) start().catch(fail);
});
$("month").addEventListener("change", (e) => {
  if (validMonth(e.target.value) && token) load(e.target.value).catch(fail);
});
for (const tab of document.querySelectorAll("[data-screen]")) {
  tab.addEventListener("click", (e) => { e.preventDefault(); if (token) show(tab.dataset.screen); });
}

function fail(e) {
  status.textContent = "Error: " + e.message;
  document.body.dataset.error = e.message;
}

if (token) {
  start().catch(fail);
} else {
  status.textContent = "Sign in to see your spending.";
  $("signin").hidden = false;
}
