import Foundation
import GeoSpend
import Hummingbird
import HTTPTypes

/// `/map`: a live map page that reads the API (hexagons, places, points of the token's user)
/// instead of files. The token comes in the address's fragment (`/map#token=…`), which browsers
/// never send to the server, so it is in no request and no log; the page takes it out of the
/// address bar at once and keeps it in a closure of its script only — not in storage or a
/// global, where any other script on the page could read it — so a reload asks for it again.
///
/// Everything from the database (store names are public OSM text, shared by all users) reaches
/// the page as text nodes, never as HTML, and the page's Content-Security-Policy allows scripts
/// and styles from this service only, none inline: markup in a name shows as written, and an
/// injected handler would not run. Leaflet is Debian's libjs-leaflet. Under the layers, the web
/// app's basemap (`/app/config.json`, docs/WEBAPP.md § The basemap), with a title, a legend in
/// money, a metric scale and the ODbL credit.
struct MapRoutes {
    func add(to router: Router<ServiceContext>) {
        router.get("map") { _, _ in Self.file(Self.page, contentType: "text/html; charset=utf-8") }
        router.get("map/map.js") { _, _ in Self.file(Self.script, contentType: "text/javascript; charset=utf-8") }
        router.get("map/map.css") { _, _ in Self.file(Self.style, contentType: "text/css; charset=utf-8") }
        router.get("map/leaflet.js") { _, _ in try Self.leaflet("leaflet.js", contentType: "text/javascript") }
        router.get("map/leaflet.css") { _, _ in try Self.leaflet("leaflet.css", contentType: "text/css") }
    }

    /// Scripts, styles, images and requests from this service only; no plugins, no frames, no
    /// `<base>`, no form posts; the page sends no referrer (its address may still hold the token
    /// for the moment before the script removes it).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func file(_ text: String, contentType: String) -> Response {
        var response = JSONResponse.text(text, contentType: contentType)
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }

    static func leaflet(_ name: String, contentType: String) throws -> Response {
        guard let text = try? String(contentsOfFile: MapBundle.debianLeaflet + "/" + name, encoding: .utf8) else {
            throw Problem(.notFound, "Leaflet is not installed (Debian package libjs-leaflet)")
        }
        return file(text, contentType: contentType)
    }

    static let page = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>GeoSpend live map</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/map/leaflet.css"><link rel="stylesheet" href="/map/map.css">
        </head>
        <body><div id="map"></div><p id="status">loading…</p>
        <script src="/map/leaflet.js"></script><script src="/map/map.js"></script>
        </body></html>
        """

    static let style = """
        html, body, #map { height: 100%; margin: 0 }
        #status { position: absolute; z-index: 1000; top: 8px; right: 8px; background: white; padding: 4px 8px; font: 14px sans-serif }
        #map { background: #f2efe9 }
        .map-box { background: rgba(255, 255, 255, 0.92); padding: 4px 8px; border-radius: 4px; font: 13px sans-serif }
        .map-title { font-weight: 600; font-size: 15px }
        .map-box ul { list-style: none; margin: 2px 0 0; padding: 0 }
        .swatch { display: inline-block; width: 14px; height: 10px; margin-right: 4px; border: 1px solid #b35806 }
        .op-0 { background: rgba(179, 88, 6, 0.15) } .op-1 { background: rgba(179, 88, 6, 0.3) } .op-2 { background: rgba(179, 88, 6, 0.45) }
        .op-3 { background: rgba(179, 88, 6, 0.6) } .op-4 { background: rgba(179, 88, 6, 0.75) }
        .dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 4px }
        .dot.points { border: 2px solid #542788 } .dot.places { border: 2px solid #1b7837 }

        """

    /// The page's script. Popups are DOM nodes whose text is set with `textContent`; the place
    /// with the most money has its popup opened, so the first view names where it went.
    static let script = """
        "use strict";
        (() => {
          const status = document.getElementById("status");
          // The token lives in this closure only.
          const token = new URLSearchParams(location.hash.slice(1)).get("token");
          if (location.hash) history.replaceState(null, "", location.pathname);
          const map = L.map("map", { attributionControl: false }).setView([60.17, 24.94], 13);
          // The web app's basemap (/app/config.json: the offline OpenStreetMap GeoJSON or the
          // operator's tiles) in a pane under the layers, a metric scale, a title, the credit.
          const pane = map.createPane("basemap");
          pane.style.zIndex = 150;
          pane.dataset.layer = "basemap";
          L.control.scale({ imperial: false, position: "bottomleft" }).addTo(map);
          function box(id, cls) { const b = document.createElement("div"); b.id = id; b.className = "map-box " + cls; return b; }
          function control(position, node) { const C = L.Control.extend({ onAdd: () => node }); new C({ position }).addTo(map); return node; }
          const title = control("topleft", box("geospend-title", "map-title"));
          title.textContent = "GeoSpend live map";
          const credit = control("bottomright", box("geospend-osm", "map-credit"));
          const legend = control("bottomleft", box("geospend-legend", "map-legend"));
          async function basemap() {
            const config = await (await fetch("/app/config.json")).json();
            const b = config.basemap;
            const link = document.createElement("a");
            link.href = "https://www.openstreetmap.org/copyright";
            link.textContent = "OpenStreetMap contributors";
            credit.append("Basemap and places © ", link, ", ODbL");
            if (b.type === "tiles") { credit.append(" · " + b.attribution); L.tileLayer(b.url, { pane: "basemap" }).addTo(map); return; }
            if (!b.url) return;
            const doc = await (await fetch(b.url)).json();
            const colour = { water: "#b9d9f0", green: "#d4ebcf", building: "#e4ddd4", coastline: "#7fb2d9" };
            L.geoJSON(doc, { pane: "basemap", interactive: false, renderer: L.svg({ pane: "basemap" }), style: f => {
              const kind = String(f.properties.kind).split(":")[0];
              return kind === "street" ? { color: "#ffffff", weight: 3, opacity: 1 }
                : { color: colour[kind] || "#ccc", weight: kind === "coastline" ? 1.5 : 0.5, fillColor: colour[kind] || "#ccc", fillOpacity: 1 };
            } }).addTo(map);
            pane.dataset.features = String(doc.features.length);
          }
          // The grid's legend in money: the opacity steps of the cells' totals.
          function drawLegend(hex) {
            const g = hex.geospend || {}, currency = g.currency || "";
            const max = Math.max(0, ...hex.features.map(f => f.properties.total || 0));
            const fmt = v => { try { return new Intl.NumberFormat("en", { style: "currency", currency, maximumFractionDigits: 0 }).format(v); } catch { return Math.round(v) + " " + currency; } };
            const head = document.createElement("strong");
            head.textContent = currency + " per " + ((g.grid && g.grid.cell_m) || 250) + " m cell";
            const list = document.createElement("ul");
            for (let i = 0; i < 5; i++) {
              const li = document.createElement("li"), sw = document.createElement("span");
              sw.className = "swatch op-" + i;
              li.append(sw, fmt(max * i / 5) + " – " + fmt(max * (i + 1) / 5));
              list.append(li);
            }
            const keys = document.createElement("ul");
            for (const [cls, text] of [["points", "an expense"], ["places", "a place"]]) {
              const li = document.createElement("li"), dot = document.createElement("span");
              dot.className = "dot " + cls;
              li.append(dot, text);
              keys.append(li);
            }
            legend.replaceChildren(head, list, keys);
            title.textContent = "GeoSpend live map — " + currency;
          }
          async function layer(name) {
            const r = await fetch("/api/v1/export/" + name, { headers: { Authorization: "Bearer " + token } });
            if (!r.ok) { const p = await r.json(); throw new Error(p.detail || r.statusText); }
            return r.json();
          }
          // A place's popup: its name (or "cluster") and total, as text.
          function placePopup(f) {
            const box = document.createElement("div");
            const name = document.createElement("strong");
            name.className = "place-name";
            name.textContent = f.properties.name ?? "cluster";
            box.append(name, document.createTextNode(": " + f.properties.total + " " + f.properties.currency));
            return box;
          }
          if (!token) {
            status.textContent = "open /map#token=YOUR_TOKEN (geospend tokens create --user U)";
            return;
          }
          basemap().catch(e => { credit.textContent = "basemap: " + e.message; });
          Promise.all(["grid", "places", "points"].map(layer)).then(([hex, places, points]) => {
            drawLegend(hex);
            const hexes = L.geoJSON(hex, { style: f => ({ weight: 1, color: "#b35806", fillOpacity: 0.15 + 0.6 * f.properties.weight }) });
            const dots = L.geoJSON(points, { pointToLayer: (f, ll) => L.circleMarker(ll, { radius: 3, color: "#542788" }) });
            let top = null;
            const spots = L.geoJSON(places, { pointToLayer: (f, ll) => {
              const marker = L.circleMarker(ll, { radius: 6, color: "#1b7837" }).bindPopup(() => placePopup(f));
              if (!top || f.properties.total > top.total) top = { total: f.properties.total, marker };
              return marker;
            } });
            [hexes, dots, spots].forEach(l => l.addTo(map));
            if (points.features.length) map.fitBounds(dots.getBounds());
            if (top) top.marker.openPopup();
            status.textContent = `points ${points.features.length}, hexagons ${hex.features.length}, places ${places.features.length}`;
          }).catch(e => { status.textContent = "error: " + e.message; });
        })();

        """
}
