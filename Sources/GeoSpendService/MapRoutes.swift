import Foundation
import GeoSpend
import Hummingbird

/// `/map`: a live map page that reads the API (hexagons, places, points of the token's user)
/// instead of files. The token comes in the address's fragment (`/map#token=…`), which browsers
/// never send to the server, so it is in no request and no log; the page keeps it in the tab's
/// sessionStorage, takes it out of the address bar and sends it as `Authorization: Bearer`.
/// The page itself holds no data and needs no token. Leaflet is Debian's libjs-leaflet.
struct MapRoutes {
    func add(to router: Router<ServiceContext>) {
        router.get("map") { _, _ in JSONResponse.text(Self.page, contentType: "text/html; charset=utf-8") }
        router.get("map/leaflet.js") { _, _ in try Self.leaflet("leaflet.js", contentType: "text/javascript") }
        router.get("map/leaflet.css") { _, _ in try Self.leaflet("leaflet.css", contentType: "text/css") }
    }

    static func leaflet(_ name: String, contentType: String) throws -> Response {
        guard let text = try? String(contentsOfFile: MapBundle.debianLeaflet + "/" + name, encoding: .utf8) else {
            throw Problem(.notFound, "Leaflet is not installed (Debian package libjs-leaflet)")
        }
        return JSONResponse.text(text, contentType: contentType)
    }

    static let page = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>GeoSpend live map</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/map/leaflet.css">
        <style>html, body, #map { height: 100%; margin: 0 } #status { position: absolute; z-index: 1000; top: 8px; right: 8px;
        background: white; padding: 4px 8px; font: 14px sans-serif }</style></head>
        <body><div id="map"></div><p id="status">loading…</p>
        <script src="/map/leaflet.js"></script>
        <script>
        const status = document.getElementById("status");
        const given = new URLSearchParams(location.hash.slice(1)).get("token");
        if (given) { sessionStorage.setItem("geospend-token", given); history.replaceState(null, "", location.pathname); }
        const token = sessionStorage.getItem("geospend-token");
        const map = L.map("map").setView([60.17, 24.94], 13);
        async function layer(name) {
          const r = await fetch("/api/v1/export/" + name, { headers: { Authorization: "Bearer " + token } });
          if (!r.ok) { const p = await r.json(); throw new Error(p.detail || r.statusText); }
          return r.json();
        }
        if (!token) {
          status.textContent = "open /map#token=YOUR_TOKEN (geospend tokens create --user U)";
        } else {
          Promise.all(["grid", "places", "points"].map(layer)).then(([hex, places, points]) => {
            const hexes = L.geoJSON(hex, { style: f => ({ weight: 1, color: "#b35806", fillOpacity: 0.15 + 0.6 * f.properties.weight }) });
            const dots = L.geoJSON(points, { pointToLayer: (f, ll) => L.circleMarker(ll, { radius: 3, color: "#542788" }) });
            const spots = L.geoJSON(places, { pointToLayer: (f, ll) => L.circleMarker(ll, { radius: 6, color: "#1b7837" })
              .bindPopup(`${f.properties.name ?? "cluster"}: ${f.properties.total} ${f.properties.currency}`) });
            [hexes, dots, spots].forEach(l => l.addTo(map));
            if (points.features.length) map.fitBounds(dots.getBounds());
            status.textContent = `points ${points.features.length}, hexagons ${hex.features.length}, places ${places.features.length}`;
          }).catch(e => { status.textContent = "error: " + e.message; });
        }
        </script></body></html>
        """
}
