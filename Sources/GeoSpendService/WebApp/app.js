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

/// A query string with every name and value percent-encoded (`encodeURIComponent`): the
/// service reads `+` as a plus, so URLSearchParams' form encoding (a space as `+`) would turn
/// "Vollmilch 1,5%" into "Vollmilch+1,5%".
function query(params) {
  const pairs = params instanceof URLSearchParams ? [...params.entries()] : Object.entries(params);
  return pairs.map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(v)).join("&");
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

const state = { addMap: null, addMarker: null, addPosition: null, points: null, map: null, layers: [], basemapDrawn: null, config: null, month: null, reviewMap: null, reviewLayer: null, reviewRows: [], objectURLs: [] };

/// A Leaflet map in the element `id`: the pane the basemap is drawn in (under everything,
/// marked `data-layer="basemap"`) and a metric scale; every screen's map starts so.
function baseMap(id, centre, zoom) {
  const map = L.map(id, { attributionControl: false, zoomSnap: 0.25 }).setView(centre, zoom);
  const pane = map.createPane("basemap");
  pane.style.zIndex = 150;
  pane.dataset.layer = "basemap";
  L.control.scale({ imperial: false, position: "bottomleft" }).addTo(map);
  return map;
}

/// The month's Leaflet map: a bottom pane for the basemap (`data-layer="basemap"`), a title and
/// a metric scale (the credit follows /app/config.json: `addCredit`). Made once; layers change
/// with the month.
function makeMap() {
  const map = baseMap("map", [60.1715, 24.944], 15);

  const Title = L.Control.extend({
    onAdd() { return el("div", { class: "map-title", id: "map-title" }, "GeoSpend"); },
  });
  new Title({ position: "topright" }).addTo(map);
  return map;
}

/// The basemap's credit on `map`, once the service said which basemap it serves.
function addCredit(map, config) {
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
  const shapes = await basemapShapes(b.url);
  new BasemapLayer(shapes).addTo(map);
  map.getPane("basemap").dataset.features = String(shapes.length);
  return shapes.length;
}

/// The offline basemap's shapes, fetched and prepared once per page (every screen's map draws
/// them); a failed fetch is asked again by the next map.
let basemapAsked = null;
function basemapShapes(url) {
  basemapAsked ??= fetch(url).then(async (r) => {
    if (!r.ok) throw new Error("basemap: " + r.status);
    return prepareBasemap(await r.json());
  }).catch((e) => { basemapAsked = null; throw e; });
  return basemapAsked;
}

/// Web Mercator at zoom 0 scaled to 0–1, as Leaflet's EPSG:3857 projects: x = (lon + 180) / 360,
/// y = ½ − ln tan(π/4 + φ/2) / 2π. A canvas layer's redraw at any zoom is then a multiplication
/// and a subtraction per vertex.
const mercatorLimit = 85.0511287798 * Math.PI / 180;
const mercatorX = (lon) => (lon + 180) / 360;
function mercatorY(lat) {
  const phi = Math.max(-mercatorLimit, Math.min(mercatorLimit, lat * Math.PI / 180));
  return 0.5 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / (2 * Math.PI);
}

/// Each feature as its style and its rings in unit Web Mercator (x, y pairs).
function prepareBasemap(doc) {
  const fills = { water: ["#7fb2d9", 0.5, "#b9d9f0"], green: ["#9cc79a", 0.5, "#d4ebcf"], building: ["#c9bfb3", 0.5, "#e4ddd4"] };
  const streetWidth = { primary: 5, secondary: 4.5, tertiary: 4, residential: 3, pedestrian: 3, living_street: 3, service: 2, footway: 1.2, path: 1.2, cycleway: 1.2, steps: 1 };
  const ring = (coordinates) => {
    const out = new Float64Array(coordinates.length * 2);
    coordinates.forEach(([lon, lat], i) => { out[2 * i] = mercatorX(lon); out[2 * i + 1] = mercatorY(lat); });
    return out;
  };
  const shapes = [];
  for (const f of doc.features || []) {
    const g = f.geometry;
    if (!g) continue;
    const [group, sub] = String(f.properties?.kind).split(":");
    let style;
    if (group === "street") style = { color: "#ffffff", weight: streetWidth[sub] || 2 };
    else if (group === "coastline") style = { color: "#7fb2d9", weight: 1.5 };
    else if (fills[group]) style = { color: fills[group][0], weight: fills[group][1], fill: fills[group][2] };
    else style = { color: "#bbb", weight: 0.5 };
    const lines = { LineString: [g.coordinates], MultiLineString: g.coordinates, Polygon: g.coordinates, MultiPolygon: (g.coordinates || []).flat() }[g.type];
    if (!lines) continue;
    shapes.push({ ...style, closed: g.type.endsWith("Polygon"), rings: lines.map(ring) });
  }
  return shapes;
}

/// A layer drawn on one canvas of its own, larger than the view by `padding` on each side,
/// redrawn when the map stops moving and scaled with Leaflet's zoom animation meanwhile. The
/// basemap and the month's dots draw so: as Leaflet layers (one object per feature, projected
/// and kept) the 3,114 basemap features took 170-350 ms of the first screen's main thread and
/// the 7,311 dots of the bench's month 80-210 ms (Benchmarks/RESULTS.md). `_paint(ctx, scale,
/// origin)` draws: a unit-Mercator x is at `x * scale - origin.x` on the canvas.
const CanvasLayer = L.Layer.extend({
  onAdd() {
    this._canvas = L.DomUtil.create("canvas", "leaflet-zoom-animated " + (this.options.className || ""));
    this.getPane().appendChild(this._canvas);
    this._draw();
  },
  onRemove() { L.DomUtil.remove(this._canvas); },
  getEvents() { return { moveend: this._draw, resize: this._draw, zoomanim: this._animateZoom }; },
  _draw() {
    const map = this._map, canvas = this._canvas, size = map.getSize();
    const pad = size.multiplyBy(this.options.padding).round();
    const topLeft = map.containerPointToLayerPoint(pad.multiplyBy(-1)).round();
    const width = size.x + 2 * pad.x, height = size.y + 2 * pad.y, ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    L.DomUtil.setPosition(canvas, topLeft);
    this._topLeft = map.layerPointToLatLng(topLeft);
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.lineJoin = ctx.lineCap = "round";
    this._paint(ctx, map.options.crs.scale(map.getZoom()), map.getPixelOrigin().add(topLeft));
  },
  /// Where the canvas's corner will be at the animation's end (the new pixel origin from the
  /// new centre, as Leaflet places its own renderers), scaled by the zoom's ratio.
  _animateZoom(e) {
    const map = this._map;
    const newOrigin = map.project(e.center, e.zoom).subtract(map.getSize().divideBy(2)).subtract(map.containerPointToLayerPoint([0, 0])).round();
    L.DomUtil.setTransform(this._canvas, map.project(this._topLeft, e.zoom).subtract(newOrigin), map.getZoomScale(e.zoom));
  },
});

/// The offline basemap (`prepareBasemap`'s shapes), drawn in file order: nobody clicks it.
const BasemapLayer = CanvasLayer.extend({
  options: { pane: "basemap", padding: 0.5 },
  initialize(shapes) { this._shapes = shapes; },
  _paint(ctx, scale, origin) {
    for (const s of this._shapes) {
      ctx.beginPath();
      for (const r of s.rings) {
        ctx.moveTo(r[0] * scale - origin.x, r[1] * scale - origin.y);
        for (let i = 2; i < r.length; i += 2) ctx.lineTo(r[i] * scale - origin.x, r[i + 1] * scale - origin.y);
        if (s.closed) ctx.closePath();
      }
      if (s.fill) { ctx.fillStyle = s.fill; ctx.fill("evenodd"); }
      ctx.strokeStyle = s.color;
      ctx.lineWidth = s.weight;
      ctx.stroke();
    }
  },
});

/// The month's expenses (a points layer's features) as dots: a filled one where the device gave
/// the position, a dashed ring where geotag inferred it. A click within a few pixels of a dot
/// opens `popup(feature)` for the nearest; the canvas says how many of each it holds
/// (`data-device`, `data-inferred`).
const DotsLayer = CanvasLayer.extend({
  options: { padding: 0.2, className: "expense-dots" },
  initialize(features, popup) {
    this._features = features;
    this._popup = popup;
    const n = features.length;
    this._x = new Float64Array(n);
    this._y = new Float64Array(n);
    this._inferred = new Uint8Array(n);
    features.forEach((f, i) => {
      const [lon, lat] = f.geometry.coordinates, source = f.properties.position_source;
      this._x[i] = mercatorX(lon);
      this._y[i] = mercatorY(lat);
      this._inferred[i] = source && source !== "device" ? 1 : 0;
    });
  },
  getEvents() { return { ...CanvasLayer.prototype.getEvents.call(this), click: this._click }; },
  getBounds() {
    const b = L.latLngBounds([]);
    for (const f of this._features) b.extend([f.geometry.coordinates[1], f.geometry.coordinates[0]]);
    return b;
  },
  onAdd() {
    CanvasLayer.prototype.onAdd.call(this);
    const inferred = this._inferred.reduce((a, b) => a + b, 0);
    this._canvas.dataset.inferred = String(inferred);
    this._canvas.dataset.device = String(this._features.length - inferred);
  },
  _paint(ctx, scale, origin) {
    const colour = "#542788";
    ctx.beginPath();  // every device dot in one path: filled, then outlined
    for (let i = 0; i < this._x.length; i++) {
      if (this._inferred[i]) continue;
      const x = this._x[i] * scale - origin.x, y = this._y[i] * scale - origin.y;
      ctx.moveTo(x + 3.5, y);
      ctx.arc(x, y, 3.5, 0, 2 * Math.PI);
    }
    ctx.globalAlpha = 0.8;
    ctx.fillStyle = colour;
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.beginPath();
    for (let i = 0; i < this._x.length; i++) {
      if (!this._inferred[i]) continue;
      const x = this._x[i] * scale - origin.x, y = this._y[i] * scale - origin.y;
      ctx.moveTo(x + 4, y);
      ctx.arc(x, y, 4, 0, 2 * Math.PI);
    }
    ctx.setLineDash([2, 2]);
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.setLineDash([]);
  },
  /// The nearest dot within 7 px of the click; a click on a place (an interactive Leaflet path
  /// above) is the place's.
  _click(e) {
    if (e.originalEvent?.target?.classList?.contains("leaflet-interactive")) return;
    const map = this._map, scale = map.options.crs.scale(map.getZoom()), origin = map.getPixelOrigin();
    let best = -1, bestD = 49;
    for (let i = 0; i < this._x.length; i++) {
      const dx = this._x[i] * scale - origin.x - e.layerPoint.x, dy = this._y[i] * scale - origin.y - e.layerPoint.y;
      const d = dx * dx + dy * dy;
      if (d <= bestD) { best = i; bestD = d; }
    }
    if (best < 0) return;
    const [lon, lat] = this._features[best].geometry.coordinates;
    L.popup().setLatLng([lat, lon]).setContent(this._popup(this._features[best])).openOn(map);
  },
});

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

/// What the month's map reads of each point: the dot (inferred or not), its popup and a place's
/// list (amount, time, merchant, store). The currency is the layer's (a layer holds one), the
/// kind always an expense; category and weight are never read. Asking for these only keeps the
/// first screen's largest download small (issue 41).
const pointProperties = "amount,occurred_at,merchant,store_id,position_source";

/// The first screen's requests for a month, asked at once: no request waits for another.
/// Places (clustered from every expense of the month) are the slowest layer: they are asked
/// after the ready mark (drawPlaces), so the first screen does not wait for them.
function monthData(month) {
  const range = "from=" + month + "-01&to=" + lastDay(month);
  return {
    summary: api("/api/v1/summary?month=" + month),
    previous: api("/api/v1/summary?month=" + previousMonth(month)),
    hex: api("/api/v1/export/grid?cell=250m&" + range),
    points: api("/api/v1/export/points?properties=" + pointProperties + "&" + range),
  };
}

/// The month's layers from the rollup and export endpoints /map uses: hexagons (money per cell),
/// expenses (device and inferred positions apart) and places.
async function drawMonth(month, data) {
  const map = state.map;
  for (const l of state.layers) map.removeLayer(l);
  state.layers = [];
  const [hex, points] = await Promise.all([data.hex, data.points]);
  const currency = hex.geospend?.currency || points.geospend?.currency || "EUR";
  const cellMax = Math.max(0, ...hex.features.map((f) => f.properties.total || 0));
  const bounds = steps(cellMax);
  const classOf = (v) => Math.min(4, Math.floor(v / (bounds[1] || 1)));
  const hexes = L.geoJSON(hex, {
    style: (f) => ({ weight: 1, color: "#7f2704", opacity: 0.6, fillColor: heatColours[classOf(f.properties.total || 0)], fillOpacity: 0.55, className: "hex" }),
    interactive: false,
  });
  // Thousands of dots on one canvas (DotsLayer): an SVG element or a Leaflet object each costs
  // too much at 100k a year.
  const pointsCurrency = points.geospend?.currency || currency;
  const dots = new DotsLayer(points.features, (f) => expensePopup(f, pointsCurrency));
  // The month's view first, not animated (the ready mark comes after the map is drawn there),
  // then its layers drawn once, at that view.
  if (points.features.length) map.fitBounds(dots.getBounds().pad(0.1), { maxZoom: 16, animate: false });
  for (const l of [hexes, dots]) { l.addTo(map); state.layers.push(l); }
  legend(currency, bounds, "250 m");
  $("map-title").textContent = "GeoSpend — " + (state.who || "") + ", " + month + ", " + currency;
  $("map").dataset.features = String(points.features.length);
  $("map").dataset.hexagons = String(hex.features.length);
  delete $("map").dataset.places;
  state.points = points;
  return { points: points.features.length, hexagons: hex.features.length };
}

/// The month's places (`/api/v1/export/places`), over the other layers and in the top list.
async function drawPlaces(month) {
  const places = await api("/api/v1/export/places?from=" + month + "-01&to=" + lastDay(month));
  if (state.month !== month) return;  // another month was asked meanwhile
  const points = state.points;
  const placeMax = Math.max(1, ...places.features.map((f) => f.properties.total || 0));
  const spots = L.geoJSON(places, {
    pointToLayer: (f, ll) => L.circleMarker(ll, {
      radius: 6 + 10 * Math.sqrt((f.properties.total || 0) / placeMax), color: "#1b7837", weight: 2, fillColor: "#5aae61", fillOpacity: 0.35, className: "place",
    }).on("click", () => showPlace(f, points)),
  });
  spots.addTo(state.map);
  state.layers.push(spots);
  topPlaces(places, points);
  $("map").dataset.places = String(places.features.length);
}

/// An expense's popup; `currency` is its layer's.
function expensePopup(f, currency) {
  const p = f.properties;
  return el("div", { class: "popup" },
    el("strong", {}, money(p.amount, p.currency || currency)), " at ", el("span", { class: "merchant" }, p.merchant || p.store_name || "—"),
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
  const p = f.properties, currency = points.geospend?.currency || p.currency;
  const mine = points.features.filter((x) => p.kind === "store"
    ? x.properties.store_id === p.place_id
    : !x.properties.store_id && metres(x.geometry.coordinates, f.geometry.coordinates) <= 75);
  $("place-heading").textContent = "Expenses at " + (p.name || "an unnamed spot");
  $("place-hint").textContent = mine.length + " expenses, " + money(p.total, p.currency) + " in all.";
  const list = $("place-expenses");
  list.replaceChildren(...mine.sort((a, b) => String(b.properties.occurred_at).localeCompare(String(a.properties.occurred_at)))
    .map((x) => el("li", {}, el("strong", {}, money(x.properties.amount, x.properties.currency || currency)), " ",
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

/// The review screen's own map, made when the screen is first shown (Leaflet needs a visible
/// container), with the same basemap as the month's.
function reviewMap() {
  if (state.reviewMap) { state.reviewMap.invalidateSize(); return state.reviewMap; }
  const map = baseMap("review-map", [60.1715, 24.944], 15);
  if (state.config) drawBasemap(map, state.config).catch(() => 0);
  state.reviewMap = map;
  state.reviewLayer = L.layerGroup().addTo(map);
  return map;
}

/// Confirms `item` at candidate `c`, from its button or its marker: one click.
async function confirmCandidate(item, c, name, row) {
  await api("/api/v1/geotag/confirm?id=" + encodeURIComponent(item.id) + "&store=" + encodeURIComponent(c.store_id), { method: "POST" });
  row.replaceChildren(el("span", { class: "done" }, "Confirmed: " + name));
  await reviewCount();
  row.dataset.confirmed = c.store_id;  // after the count: tests wait for this
  const next = state.reviewRows.find((r) => !r.row.dataset.confirmed);
  if (next) chooseReviewItem(next); else { state.reviewLayer.clearLayers(); $("review-map-caption").textContent = "Nothing left to review."; }
}

/// Draws one review item's candidate stores on the review map: a labelled marker each (a
/// button for the keyboard: Tab to it, Enter confirms), and the recorded position if any.
function chooseReviewItem(entry) {
  const map = reviewMap();
  const { item, row, names, expense } = entry;
  state.reviewLayer.clearLayers();
  for (const r of state.reviewRows) r.row.classList.toggle("chosen", r === entry);
  const label = expense ? money(Number(expense.amount), expense.currency) + " " + (expense.merchant || expense.title || "") : item.id;
  $("review-map-caption").textContent = "Candidate stores for " + label + ": click one to confirm it.";
  $("review-map").dataset.expense = item.id;
  const points = [];
  for (const c of item.candidates || []) {
    const name = names.get(c.store_id) || c.store_id;
    const icon = L.divIcon({ className: "candidate-icon", iconSize: null, iconAnchor: [8, 8], html: el("span", { class: "candidate-label" }, name) });
    const marker = L.marker([c.lat, c.lon], { icon, keyboard: true, title: "It was " + name + ": confirm" });
    const choose = () => {
      const node = marker.getElement();
      if (node.dataset.busy) return;
      node.dataset.busy = "true";
      confirmCandidate(item, c, name, row).catch((err) => { delete node.dataset.busy; status.textContent = "Could not confirm: " + err.message; });
    };
    marker.on("click", choose);
    // Leaflet 1.7 makes a marker focusable but turns no key into a click: Enter or Space does here.
    marker.on("keypress", (e) => { if (e.originalEvent.key === "Enter" || e.originalEvent.key === " ") choose(); });
    marker.addTo(state.reviewLayer);
    const node = marker.getElement();
    node.dataset.store = c.store_id;
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", "It was " + name + ": confirm");
    node.classList.add("candidate");
    points.push([c.lat, c.lon]);
  }
  if (expense && expense.lat != null && expense.lon != null) {
    L.circleMarker([Number(expense.lat), Number(expense.lon)], { radius: 7, color: "#542788", weight: 2, dashArray: "3 3", fill: false, className: "recorded", interactive: false })
      .addTo(state.reviewLayer);
    points.push([Number(expense.lat), Number(expense.lon)]);
  }
  if (points.length) map.fitBounds(L.latLngBounds(points).pad(0.4), { maxZoom: 18 });
}

async function drawReview() {
  const list = $("review");
  delete list.dataset.loaded;
  list.replaceChildren();
  reviewMap();
  state.reviewRows = [];
  if (!reviewItems.length) { list.append(el("li", {}, "Nothing to review.")); state.reviewLayer.clearLayers(); }
  for (const item of reviewItems.slice(0, 30)) {
    const row = el("li", { class: "review-item", "data-expense": item.id });
    list.append(row);
    let expense = null;
    try { expense = await api("/api/v1/expenses/" + encodeURIComponent(item.id)); } catch { /* shown by id */ }
    const entry = { item, row, expense, names: new Map() };
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
      entry.names.set(c.store_id, name);
      choices.append(el("button", {
        type: "button", class: "confirm", "data-store": c.store_id,
        onclick: async (e) => {
          e.target.disabled = true;
          try { await confirmCandidate(item, c, name, row); } catch (err) {
            e.target.disabled = false;
            status.textContent = "Could not confirm: " + err.message;
          }
        },
      }, "It was " + name));
    }
    choices.append(el("button", { type: "button", class: "secondary", onclick: () => chooseReviewItem(entry) }, "Show on the map"));
    row.append(choices);
    state.reviewRows.push(entry);
    if (state.reviewRows.length === 1) chooseReviewItem(entry);
  }
  try {
    await drawReceipts();
  } catch (e) {
    $("receipts").replaceChildren(el("li", {}, "Receipts: " + e.message));
  }
  list.dataset.loaded = "true";  // tests wait for this: the receipts are in too
}

// ---- receipts to review -----------------------------------------------------------------------

/// A receipt's kept photo: fetched with the token (an `<img src>` to the API would carry none),
/// shown from an object URL (the policy allows `img-src blob:`), revoked when replaced.
async function receiptPhoto(r) {
  if (!r.image_kept) return el("p", { class: "figure-note" }, "No photo kept (imported as text, or without keep-image).");
  const resp = await fetch("/api/v1/receipts/" + encodeURIComponent(r.id) + "/image", { headers: { Authorization: "Bearer " + token } });
  if (!resp.ok) return el("p", { class: "figure-note" }, "The photo could not be read (" + resp.status + ").");
  const url = URL.createObjectURL(await resp.blob());
  state.objectURLs.push(url);
  return el("img", { class: "receipt-photo", src: url, alt: "Photo of receipt " + (r.image_name || r.id) });
}

async function drawReceipts() {
  const list = $("receipts");
  delete list.dataset.loaded;
  for (const url of state.objectURLs.splice(0)) URL.revokeObjectURL(url);
  list.replaceChildren();
  const all = [];
  let after = null;
  do {
    const page = await api("/api/v1/receipts?limit=1000" + (after ? "&after=" + after : ""));
    all.push(...page.receipts);
    after = page.next;
  } while (after);
  const waiting = all.filter((r) => r.status === "needs_review");
  $("receipt-review-count").textContent = "(" + waiting.length + ")";
  if (!waiting.length) list.append(el("li", {}, "No receipt waits for review."));
  for (const summary of waiting.slice(0, 20)) {
    const row = el("li", { class: "receipt", "data-receipt": summary.id, "data-status": summary.status });
    list.append(row);
    await drawReceipt(row, await api("/api/v1/receipts/" + encodeURIComponent(summary.id)));
  }
  list.dataset.loaded = "true";
}

/// One receipt: photo, problems, the lines as read with their prices editable in place, store,
/// date and total; Save sends each change to the correction endpoint, Accept confirms as is.
async function drawReceipt(row, r) {
  row.dataset.status = r.status;
  const idBase = "rc-" + r.sequence;
  const problems = el("ul", { class: "problems" }, ...(r.problems || []).map((p) => el("li", {}, p)));
  const lines = el("tbody");
  for (const item of r.items || []) {
    lines.append(el("tr", {},
      el("td", {}, String(item.line)),
      el("td", { class: "as-read" }, item.text),
      el("td", {}, el("input", { type: "text", inputmode: "decimal", class: "price", size: "7", value: item.price || "",
        "data-line": String(item.line), "data-was": item.price || "", "aria-label": "Price of line " + item.line + ", " + item.name }))));
  }
  const field = (key, label, value, type = "text") => el("label", { class: "field" }, label + " ",
    el("input", { type, id: idBase + "-" + key, "data-field": key, "data-was": value || "", value: value || "" }));
  const message = el("p", { class: "receipt-message", role: "status" });
  const save = el("button", { type: "button", class: "confirm", "data-action": "save" }, "Save corrections");
  const accept = el("button", { type: "button", class: "secondary", "data-action": "accept" }, "Accept as it is");
  const photo = await receiptPhoto(r);
  row.replaceChildren(
    el("div", { class: "receipt-photo-box" }, photo),
    el("div", { class: "receipt-body" },
      el("h3", {}, (r.image_name || "Receipt") + " · " + (r.date || "no date") + " · " + (r.total ? r.total + " " + r.currency : "no total")),
      r.status === "needs_review" ? el("div", {}, el("strong", {}, "Why it waits:"), problems) : el("p", { class: "done" }, "Saved: an expense of " + r.total + " " + r.currency),
      el("table", { class: "lines" }, el("caption", {}, "Lines as read"),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Line"), el("th", { scope: "col" }, "Read as"), el("th", { scope: "col" }, "Price"))), lines),
      el("div", { class: "fields" }, field("store", "Store id", r.store), field("date", "Date", r.date, "date"), field("total", "Total", r.total)),
      r.status === "needs_review" ? el("div", { class: "choices" }, save, accept) : null,
      message));
  save.addEventListener("click", async () => {
    save.disabled = true;
    try {
      const base = "/api/v1/receipts/" + encodeURIComponent(r.id);
      for (const input of row.querySelectorAll("input.price")) {
        if (input.value.trim() !== input.dataset.was) {
          await api(base + "/correct?line=" + input.dataset.line + "&price=" + encodeURIComponent(input.value.trim()), { method: "POST" });
        }
      }
      const q = new URLSearchParams();
      for (const input of row.querySelectorAll("input[data-field]")) {
        if (input.value.trim() !== input.dataset.was) q.set(input.dataset.field, input.value.trim());
      }
      if ([...q.keys()].length) await api(base + "/correct?" + query(q), { method: "POST" });
      await drawReceipt(row, await api(base));
      row.querySelector(".receipt-message").textContent =
        row.dataset.status === "ok" ? "Saved: the receipt is an expense now." : "Saved; it still waits: see why above.";
    } catch (err) {
      save.disabled = false;
      message.textContent = "Not saved: " + err.message;
    }
  });
  accept.addEventListener("click", async () => {
    accept.disabled = true;
    try {
      await api("/api/v1/receipts/" + encodeURIComponent(r.id) + "/confirm", { method: "POST" });
      await drawReceipt(row, await api("/api/v1/receipts/" + encodeURIComponent(r.id)));
      row.querySelector(".receipt-message").textContent = "Accepted: the receipt is an expense now.";
    } catch (err) {
      accept.disabled = false;
      message.textContent = "Not accepted: " + err.message;
    }
  });
}

// ---- shop ---------------------------------------------------------------------------------------

/// The shop screen's map, its search circle (centre: a click; radius: the select) and the
/// ranked stores' markers.
function shopMap() {
  if (state.shopMap) { state.shopMap.invalidateSize(); return state.shopMap; }
  const map = baseMap("shop-map", [60.1699, 24.9384], 14);
  if (state.config) drawBasemap(map, state.config).catch(() => 0);
  state.shopCircle = L.circle([60.1699, 24.9384], { radius: Number($("shop-radius").value), color: "#0b5cad", weight: 2, fillOpacity: 0.06, className: "shop-circle", interactive: false }).addTo(map);
  state.shopStores = L.layerGroup().addTo(map);
  map.on("click", (e) => { state.shopCircle.setLatLng(e.latlng); $("shop-map").dataset.centre = e.latlng.lat.toFixed(6) + "," + e.latlng.lng.toFixed(6); });
  $("shop-map").dataset.centre = "60.169900,24.938400";
  state.shopMap = map;
  fitShopCircle();
  return map;
}

/// The circle in view, after the browser has laid the screen out (a map made in the same task
/// as its container was shown measures a stale size on a phone).
function fitShopCircle() {
  requestAnimationFrame(() => {
    state.shopMap.invalidateSize();
    state.shopMap.fitBounds(state.shopCircle.getBounds());
  });
}

let shopLists = [];
async function drawShop() {
  shopMap();
  const select = $("shop-list");
  const answer = await api("/api/v1/lists?status=open");
  shopLists = Array.isArray(answer) ? answer : (answer.lists || []);
  const chosen = select.value;
  select.replaceChildren(...shopLists.map((l) => el("option", { value: String(l.id) }, l.name + " (" + (l.items || []).length + " items)")));
  if (!shopLists.length) select.append(el("option", { value: "" }, "No open list (geospend lists add)"));
  if (chosen && shopLists.some((l) => String(l.id) === chosen)) select.value = chosen;
  await drawShopItems();
  $("shop-items").dataset.loaded = "true";
}

function currentList() { return shopLists.find((l) => String(l.id) === $("shop-list").value); }

async function drawShopItems() {
  const list = $("shop-items");
  list.replaceChildren();
  const chosen = currentList();
  if (!chosen) { list.append(el("li", {}, "No list chosen.")); return; }
  const full = await api("/api/v1/lists/" + chosen.id);
  Object.assign(chosen, full);
  for (const item of full.items || []) {
    const row = el("li", { class: "shop-item", "data-item": item.name, "data-checked": String(!!item.checked) });
    if (item.checked) {
      row.append(el("span", { class: "done" }, "✓ " + item.name + " × " + item.quantity + ": paid " + item.paid + " " + full.currency));
    } else {
      const price = el("input", { type: "text", inputmode: "decimal", class: "price", size: "6", "aria-label": "Price of " + item.name + " per piece, kg or l" });
      const button = el("button", { type: "button", class: "secondary" }, "Check off");
      const said = el("span", { class: "figure-note", role: "status" });
      button.addEventListener("click", async () => {
        const p = price.value.trim().replace(",", ".");
        if (!/^\d+(\.\d{1,2})?$/.test(p)) { said.textContent = "Price: write it as 1.29."; price.focus(); return; }
        button.disabled = true;
        const body = { item: item.name, price: p };
        if (state.shopStore) body.store = state.shopStore;
        try {
          await api("/api/v1/lists/" + full.id + "/check", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
          await drawShopItems();
        } catch (err) { button.disabled = false; said.textContent = "Not checked: " + err.message; }
      });
      row.append(el("span", {}, item.name + " × " + item.quantity + " "), price, " ", button, " ", said);
    }
    list.append(row);
  }
}

/// `/api/v1/basket` for the list's unchecked items within the circle: the stores ranked, each
/// with what the basket costs there and what it lacks, drawn numbered on the map.
async function findBasket() {
  const chosen = currentList(), result = $("shop-result"), ranked = $("shop-stores");
  ranked.replaceChildren();
  delete ranked.dataset.loaded;
  state.shopStores.clearLayers();
  if (!chosen) { result.textContent = "Choose a list first."; return; }
  const items = (chosen.items || []).filter((i) => !i.checked);
  if (!items.length) { result.textContent = "Everything on the list is checked off."; return; }
  const c = state.shopCircle.getLatLng();
  const q = new URLSearchParams();
  // A list says "1 kg"; the basket takes NAME=1kg.
  for (const i of items) { const qty = String(i.quantity || "").replace(/\s+/g, ""); q.append("item", qty && qty !== "1" ? i.name + "=" + qty : i.name); }
  q.set("near", c.lat.toFixed(6) + "," + c.lng.toFixed(6));
  q.set("radius", $("shop-radius").value + "m");
  q.set("top", "8");
  result.textContent = "Comparing stores…";
  try {
    const b = await api("/api/v1/basket?" + query(q));
    const stores = b.stores || [];
    result.textContent = stores.length
      ? "Cheapest: " + (stores[0].store.name || stores[0].store.id) + ", " + stores[0].total_price + " " + stores[0].currency + " for " + stores[0].available_items + " of " + b.total_items + " items."
      : "No store within " + $("shop-radius").selectedOptions[0].textContent + " has prices for these items.";
    stores.forEach((s, n) => {
      const name = s.store.name || s.store.id;
      const lacks = s.unavailable_items || [];
      const why = s.total_price + " " + s.currency + " for " + s.available_items + " of " + b.total_items
        + (s.distance_m !== null && s.distance_m !== undefined ? " · " + Math.round(s.distance_m) + " m away" : "")
        + (lacks.length ? " · lacks " + lacks.join(", ") : " · has everything");
      const prices = Object.entries(s.item_prices || {}).map(([k, v]) => k + " " + v).join(", ");
      const use = el("button", { type: "button", class: "secondary", onclick: () => { state.shopStore = s.store.id; result.textContent = "Shopping at " + name + ": checks are priced there."; } }, "Shop here");
      ranked.append(el("li", { "data-store": s.store.id, "data-total": s.total_price },
        el("strong", {}, name), " — ", why, prices ? el("div", { class: "figure-note" }, prices) : null, use));
      const icon = L.divIcon({ className: "candidate-icon", iconSize: null, iconAnchor: [8, 8], html: el("span", { class: "candidate-label" }, (n + 1) + ". " + s.total_price) });
      const marker = L.marker([s.store.lat, s.store.lon], { icon, keyboard: false, title: (n + 1) + ". " + name + ": " + why }).addTo(state.shopStores);
      marker.getElement().dataset.store = s.store.id;
      marker.getElement().classList.add("ranked-store");
    });
    ranked.dataset.loaded = "true";
  } catch (err) {
    result.textContent = "No comparison: " + err.message;
    ranked.dataset.loaded = "true";
  }
}

$("shop-radius").addEventListener("change", () => {
  if (!state.shopCircle) return;
  state.shopCircle.setRadius(Number($("shop-radius").value));
  fitShopCircle();
});
$("shop-list").addEventListener("change", () => { state.shopStore = null; drawShopItems().catch((e) => { status.textContent = "Shop: " + e.message; }); });
$("shop-find").addEventListener("click", () => findBasket());

// ---- add ----------------------------------------------------------------------------------------

/// The add screen's map (made when first shown): a click sets where the expense was paid.
function addMap() {
  if (state.addMap) { state.addMap.invalidateSize(); return state.addMap; }
  const map = baseMap("add-map", [60.1699, 24.9384], 14);
  if (state.config) drawBasemap(map, state.config).catch(() => 0);
  map.on("click", (e) => setAddPosition(e.latlng.lat, e.latlng.lng, "the map"));
  state.addMap = map;
  return map;
}

/// The new expense's position (null: none), drawn as a marker and said in words.
function setAddPosition(lat, lon, from) {
  if (state.addMarker) { state.addMarker.remove(); state.addMarker = null; }
  const shown = $("add-position");
  if (lat === null) { state.addPosition = null; shown.textContent = "no position"; delete shown.dataset.lat; delete shown.dataset.lon; return; }
  state.addPosition = { lat: Number(lat.toFixed(6)), lon: Number(lon.toFixed(6)) };
  shown.textContent = state.addPosition.lat + ", " + state.addPosition.lon + " (from " + from + ")";
  shown.dataset.lat = String(state.addPosition.lat);
  shown.dataset.lon = String(state.addPosition.lon);
  if (state.addMap) state.addMarker = L.circleMarker([lat, lon], { radius: 8, color: "#0b5cad", weight: 3, fillOpacity: 0.4, className: "new-position" }).addTo(state.addMap);
}

/// `YYYY-MM-DDTHH:MM:00±HH:MM` in the browser's own offset on that day.
function localTimestamp(date, time) {
  const d = new Date(date + "T" + time + ":00");
  const off = -d.getTimezoneOffset(), sign = off < 0 ? "-" : "+", a = Math.abs(off);
  return date + "T" + time + ":00" + sign + pad(Math.floor(a / 60)) + ":" + pad(a % 60);
}

/// A problem document in words: its detail (an import lists its rows itself, from `errors`).
function problemText(doc, status) {
  if (!doc) return "the service answered " + status;
  return doc.detail || doc.title || ("the service answered " + status);
}

/// POST with upload progress (XMLHttpRequest: fetch reports none) on `bar`.
function upload(path, body, contentType, bar) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open("POST", path);
    x.setRequestHeader("Authorization", "Bearer " + token);
    if (contentType) x.setRequestHeader("Content-Type", contentType);
    bar.hidden = false;
    bar.value = 0;
    delete bar.dataset.done;
    x.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = Math.round((100 * e.loaded) / e.total); };
    x.upload.onload = () => { bar.value = 100; bar.dataset.done = "true"; };
    x.onload = () => {
      let doc = null;
      try { doc = JSON.parse(x.responseText); } catch { /* not JSON */ }
      resolve({ status: x.status, doc });
    };
    x.onerror = () => reject(new Error("the upload did not reach the service"));
    x.send(body);
  });
}

function setupAdd() {
  const now = new Date();
  $("add-date").value = today();
  $("add-time").value = pad(now.getHours()) + ":" + pad(now.getMinutes());
  $("add-locate").addEventListener("click", () => {
    const shown = $("add-position");
    if (!navigator.geolocation) { shown.textContent = "this browser gives no position: click the map"; return; }
    shown.textContent = "asking the browser…";
    navigator.geolocation.getCurrentPosition(
      (p) => { setAddPosition(p.coords.latitude, p.coords.longitude, "this device"); if (state.addMap) state.addMap.setView([p.coords.latitude, p.coords.longitude], 16); },
      (e) => { shown.textContent = "no position (" + e.message + "): click the map instead"; },
      { timeout: 20000, maximumAge: 60000 });
  });
  $("add-unplace").addEventListener("click", () => setAddPosition(null));

  $("add-expense").addEventListener("submit", async (e) => {
    e.preventDefault();
    const result = $("add-result");
    delete result.dataset.expense;
    const amount = $("add-amount").value.trim().replace(",", ".");
    if (!/^\d+(\.\d{1,2})?$/.test(amount)) { result.textContent = "Amount: write it as 4.50 (at most two decimals)."; $("add-amount").focus(); return; }
    const currency = $("add-currency").value.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) { result.textContent = "Currency: a three-letter code such as EUR."; $("add-currency").focus(); return; }
    if (!$("add-date").value || !$("add-time").value) { result.textContent = "Date and time: both are needed."; return; }
    const body = { amount, currency, at: localTimestamp($("add-date").value, $("add-time").value) };
    if ($("add-category").value.trim()) body.category = $("add-category").value.trim();
    if ($("add-note").value.trim()) body.notes = $("add-note").value.trim();
    if (state.addPosition) { body.lat = state.addPosition.lat; body.lon = state.addPosition.lon; }
    try {
      const saved = await api("/api/v1/expenses", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      result.textContent = "Added: " + saved.amount + " " + saved.currency + " on " + String(saved.occurred_at || body.at).slice(0, 16).replace("T", " ") + " (" + saved.id + ").";
      result.dataset.expense = saved.id;
      $("add-amount").value = "";
      $("add-note").value = "";
    } catch (err) {
      result.textContent = "Not added: " + err.message;
    }
  });

  $("add-receipt").addEventListener("submit", async (e) => {
    e.preventDefault();
    const result = $("receipt-result"), file = $("receipt-file").files[0];
    delete result.dataset.receipt;
    if (!file) { result.textContent = "Choose a photo first."; return; }
    const q = new URLSearchParams({ "keep-image": "true", name: file.name });
    if ($("receipt-store").value.trim()) q.set("store", $("receipt-store").value.trim());
    result.textContent = "Uploading and reading " + file.name + "…";
    try {
      const { status: code, doc } = await upload("/api/v1/receipts?" + query(q), file, file.type || "application/octet-stream", $("receipt-progress"));
      if (code !== 201) { result.textContent = "Not stored: " + problemText(doc, code); return; }
      result.textContent = doc.status === "ok"
        ? "Stored: a receipt of " + doc.total + " " + doc.currency + ", and its expense."
        : "Stored, waiting for review (" + (doc.problems || []).join("; ") + "): see Review.";
      result.dataset.receipt = doc.receipt_id;
      result.dataset.status = doc.status;
    } catch (err) {
      result.textContent = "Not stored: " + err.message;
    }
  });

  $("add-import").addEventListener("submit", async (e) => {
    e.preventDefault();
    const result = $("import-result"), errors = $("import-errors"), file = $("import-file").files[0];
    errors.replaceChildren();
    delete result.dataset.outcome;
    if (!file) { result.textContent = "Choose a file first."; return; }
    const kind = $("import-kind").value;
    const [path, type] = kind === "positions"
      ? ["/api/v1/positions", "application/octet-stream"]
      : ["/api/v1/import/expenses?format=" + kind, kind === "csv" ? "text/csv" : "application/x-ndjson"];
    result.textContent = "Uploading " + file.name + "…";
    try {
      const { status: code, doc } = await upload(path, file, type, $("import-progress"));
      const rows = (doc && doc.errors) || [];
      for (const r of rows.slice(0, 50)) errors.append(el("li", {}, file.name + ", line " + r.line + (r.column ? ", " + r.column : "") + ": " + r.reason));
      if (code !== 200) {
        result.textContent = "Not imported: " + problemText(doc, code);
        result.dataset.outcome = "refused";
        return;
      }
      const counts = Object.entries(doc || {}).filter(([, v]) => typeof v === "number").map(([k, v]) => k.replace(/_/g, " ") + " " + v);
      result.textContent = "Imported " + file.name + ": " + counts.join(" · ") + ".";
      result.dataset.outcome = "imported";
    } catch (err) {
      result.textContent = "Not imported: " + err.message;
      result.dataset.outcome = "failed";
    }
  });
}

// ---- screens and start -----------------------------------------------------------------------

function show(screen) {
  for (const s of ["month", "review", "shop", "add"]) {
    $("screen-" + s).hidden = s !== screen;
    const tab = $("tab-" + s);
    if (s === screen) tab.setAttribute("aria-current", "page"); else tab.removeAttribute("aria-current");
  }
  if (screen === "month" && state.map) state.map.invalidateSize();
  if (screen === "review") drawReview().catch((e) => { status.textContent = "Review: " + e.message; });
  if (screen === "add") addMap();
  if (screen === "shop") drawShop().catch((e) => { status.textContent = "Shop: " + e.message; });
}

async function load(month, data = monthData(month)) {
  state.month = month;
  status.textContent = "Loading " + month + "…";
  $("month-heading").textContent = month === thisMonth() ? "This month" : month;
  const [summary, previous, counts] = await Promise.all([data.summary, data.previous, drawMonth(month, data)]);
  figures(summary, previous);
  status.textContent = counts.points + " expenses on the map.";
  // Budgets, alerts and the review count follow the first screen's figures and map; `settled`
  // (on <body>) says when they are in too.
  delete document.body.dataset.settled;
  const rest = Promise.all([
    drawPlaces(month).catch((e) => { $("places").replaceChildren(el("li", {}, "Places: " + e.message)); }),
    budgets(month).catch((e) => { $("budgets").replaceChildren(el("li", {}, "Budgets: " + e.message)); }),
    alerts().catch((e) => { $("alerts").replaceChildren(el("li", {}, "Alerts: " + e.message)); }),
    reviewCount().catch((e) => { document.querySelector('[data-figure="review-count"]').textContent = "?"; status.textContent = "Review: " + e.message; }),
  ]).then(() => { document.body.dataset.settled = "true"; });
  return { rest };  // wrapped: an async function returning a promise would wait for it
}

async function start() {
  const asked = fetch("/app/config.json").then((r) => r.json());
  // The first month's data is asked beside the sign-in check, not after it (one round trip
  // less before the first screen); a refused token has these refused too, and they are dropped.
  const month = validMonth(askedMonth) ? askedMonth : thisMonth();
  const first = monthData(month);
  for (const request of Object.values(first)) request.catch(() => {});
  const signedIn = api("/api/v1/users/me");
  signedIn.catch(() => {});
  // The map and its basemap need no token (OpenStreetMap data, the same for everyone): they are
  // made while the service computes the month, not after the sign-in check — drawing the
  // basemap is the first screen's largest piece of browser work (Benchmarks/RESULTS.md).
  $("signin").hidden = true;
  $("screen-month").hidden = false;
  $("month").value = month;
  if (state.map) {
    state.map.invalidateSize();  // shown again after a refused token
  } else {
    state.map = makeMap();  // while /app/config.json is on its way
    state.basemapDrawn = asked.then((config) => {
      state.config = config;
      addCredit(state.map, config);
      return drawBasemap(state.map, config);
    }).catch((e) => { status.textContent = "Basemap: " + e.message; return 0; });
  }
  let me;
  try {
    me = await signedIn;
  } catch (e) {
    token = null;
    $("screen-month").hidden = true;
    status.textContent = e.status === 401 ? "That token was refused: sign in again." : "Sign-in failed: " + e.message;
    $("signin").hidden = false;
    return;
  }
  state.who = me.name || me.id;
  $("who").textContent = "Signed in as " + state.who;
  const [, { rest }] = await Promise.all([state.basemapDrawn, load(month, first)]);
  performance.mark("geospend-ready");
  document.body.dataset.ready = "true";
  await rest;
}

setupAdd();
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
