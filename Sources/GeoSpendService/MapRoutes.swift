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
/// injected handler would not run. Leaflet is Debian's libjs-leaflet.
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
          const map = L.map("map").setView([60.17, 24.94], 13);
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
          Promise.all(["grid", "places", "points"].map(layer)).then(([hex, places, points]) => {
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
