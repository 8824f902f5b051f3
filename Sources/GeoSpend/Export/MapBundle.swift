import Foundation

/// `geospend export bundle`: a folder that shows a user's spending on a Leaflet map with no
/// network — the points, a hex grid and the places as GeoJSON files (for QGIS and friends), the
/// same layers in `layers.js` (pages opened from disk cannot `fetch` files), Leaflet's own
/// JS/CSS/images and licence copied from Debian's `libjs-leaflet`, and `index.html`.
///
/// ```swift
/// try MapBundle.write(MapExportRequest(filter: ExpenseFilter(userID: "user1")), store: store,
///                     to: "user1-map", leaflet: MapBundle.debianLeaflet)
/// ```
public enum MapBundle {
    /// Where Debian's `libjs-leaflet` puts Leaflet (1.7.1 on Debian 12), and its licence.
    public static let debianLeaflet = "/usr/share/javascript/leaflet"
    public static let debianLeafletLicense = "/usr/share/doc/libjs-leaflet/copyright"

    /// The layers of a bundle, in drawing order (bottom first).
    static let layers: [(name: String, title: String, layer: @Sendable (Double) -> MapLayer)] = [
        ("hex", "Hex grid (total)", { .grid(.hex, cellMeters: $0, metric: .total) }),
        ("points", "Expenses", { _ in .points }),
        ("places", "Places", { _ in .places }),
    ]

    /// Writes the bundle into `directory` (created if needed; existing bundle files replaced).
    /// - Parameters:
    ///   - cellMeters: the hex grid's cell (edge) size.
    ///   - tiles: an XYZ tile URL template for a basemap (e.g. OpenStreetMap's); none offline.
    /// - Returns: each layer's summary, by name.
    @discardableResult
    public static func write(
        _ request: MapExportRequest, store: some ExpenseStore, to directory: String, cellMeters: Double = 250,
        tiles: String? = nil, leaflet: String = debianLeaflet, leafletLicense: String = debianLeafletLicense
    ) throws -> [String: MapExportSummary] {
        let fm = FileManager.default
        guard fm.fileExists(atPath: leaflet + "/leaflet.js") else {
            throw ExportError.writeFailed("Leaflet not found at \(leaflet) (install the Debian package libjs-leaflet)")
        }
        do {
            try fm.createDirectory(atPath: directory + "/leaflet/images", withIntermediateDirectories: true)
            for file in ["leaflet.js", "leaflet.css"] + (try fm.contentsOfDirectory(atPath: leaflet + "/images")).map({ "images/" + $0 }) {
                let target = directory + "/leaflet/" + file
                if fm.fileExists(atPath: target) { try fm.removeItem(atPath: target) }
                try fm.copyItem(atPath: leaflet + "/" + file, toPath: target)
            }
            let license = directory + "/leaflet/LICENSE"
            if fm.fileExists(atPath: license) { try fm.removeItem(atPath: license) }
            if fm.fileExists(atPath: leafletLicense) { try fm.copyItem(atPath: leafletLicense, toPath: license) }
        } catch let error as ExportError {
            throw error
        } catch {
            throw ExportError.writeFailed("\(directory): \(error.localizedDescription)")
        }

        var summaries: [String: MapExportSummary] = [:]
        let script = ByteSink()
        for (name, _, layer) in layers {
            let geojson = ByteSink()
            summaries[name] = try MapExport.geoJSON(layer(cellMeters), request, store: store, to: geojson)
            let bytes = geojson.bytes
            try write(bytes, to: directory + "/\(name).geojson")
            script.ascii("geospendLayer(")
            script.jsonString(name)
            script.ascii(", ")
            bytes.withUnsafeBufferPointer { script.rawBytes($0) }
            script.ascii(");\n")
        }
        try write(script.bytes, to: directory + "/layers.js")
        try write(Array(page(request: request, tiles: tiles).utf8), to: directory + "/index.html")
        return summaries
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw ExportError.writeFailed("cannot write \(path)")
        }
    }

    /// The page: Leaflet, a layer switcher, a legend of the grid's colours, popups with each
    /// place's figures. It reports what it loaded in `#geospend-status` (JSON), which the
    /// browser test reads.
    static func page(request: MapExportRequest, tiles: String?) -> String {
        let who = request.filter.userID.map { "user \($0)" } ?? "all users"
        let tileJS = tiles.map { url in
            "L.tileLayer(\(JSONOutput.string(url).serialized()), {maxZoom: 19, attribution: '&copy; OpenStreetMap contributors'}).addTo(map);"
        } ?? "// No basemap: pass --tiles URL for one."
        let layerTitles = JSONOutput.object(layers.map { ($0.name, .string($0.title)) }).serialized(pretty: false)
        let ramp = JSONOutput.array(PlacesLayer.ramp.map { .string($0) }).serialized(pretty: false)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>GeoSpend — \(escapeHTML(who))</title>
            <link rel="stylesheet" href="leaflet/leaflet.css">
            <style>
              html, body, #map { height: 100%; margin: 0; }
              #map { background: #eef0f2; }
              .legend { background: white; padding: 6px 8px; font: 12px/1.4 sans-serif; border-radius: 4px; box-shadow: 0 0 6px rgba(0,0,0,.3); }
              .legend i { display: inline-block; width: 14px; height: 14px; margin-right: 6px; vertical-align: middle; opacity: .8; }
              #geospend-status { display: none; }
            </style>
            </head>
            <body>
            <div id="map"></div>
            <pre id="geospend-status"></pre>
            <script>
              // Every script error is recorded for the status line (and the browser test).
              window.geospendErrors = [];
              window.addEventListener('error', function (e) { window.geospendErrors.push(String(e.message)); });
              window.geospendData = {};
              function geospendLayer(name, geojson) { window.geospendData[name] = geojson; }
            </script>
            <script src="leaflet/leaflet.js"></script>
            <script src="layers.js"></script>
            <script>
            (function () {
              var data = window.geospendData, titles = \(layerTitles), ramp = \(ramp);
              var map = L.map('map', {preferCanvas: true});
              \(tileJS)
              function colour(w) { return ramp[Math.min(ramp.length - 1, Math.floor(w * ramp.length))]; }
              function money(v, currency) { return v == null ? '–' : Number(v).toFixed(2) + ' ' + currency; }
              function text(s) { var d = document.createElement('div'); d.textContent = s == null ? '–' : String(s); return d.innerHTML; }
              var overlays = {}, loaded = {};
              var hex = L.geoJSON(data.hex, {
                style: function (f) { return {color: '#555', weight: 0.5, fillColor: colour(f.properties.weight), fillOpacity: 0.6}; },
                onEachFeature: function (f, layer) {
                  var p = f.properties;
                  layer.bindPopup('<b>' + text(p.cell_id) + '</b><br>' + p.count + ' expenses<br>total ' + money(p.total, p.currency) +
                                  '<br>average ' + money(p.average, p.currency));
                }
              });
              var points = L.geoJSON(data.points, {
                pointToLayer: function (f, latlng) {
                  return L.circleMarker(latlng, {radius: 2 + 6 * f.properties.weight, color: '#08519c', weight: 1, fillOpacity: 0.5});
                },
                onEachFeature: function (f, layer) {
                  var p = f.properties;
                  layer.bindPopup(money(p.amount, p.currency) + '<br>' + text(p.occurred_at) + '<br>' + text(p.category));
                }
              });
              var places = L.geoJSON(data.places, {
                pointToLayer: function (f, latlng) {
                  var p = f.properties, r = {small: 5, medium: 8, large: 11}[p['marker-size']] || 5;
                  return L.circleMarker(latlng, {radius: r, color: '#222', weight: 1, fillColor: p['marker-color'], fillOpacity: 0.9});
                },
                onEachFeature: function (f, layer) {
                  var p = f.properties;
                  layer.bindPopup('<b>' + text(p.name || p.place_id) + '</b> (' + text(p.kind) + ')<br>' + p.count + ' visits, total ' +
                                  money(p.total, p.currency) + '<br>average ' + money(p.average, p.currency) + ', median ' +
                                  money(p.median, p.currency) + '<br>first ' + text(p.first_visit) + '<br>last ' + text(p.last_visit));
                }
              });
              [['hex', hex], ['points', points], ['places', places]].forEach(function (pair) {
                overlays[titles[pair[0]]] = pair[1];
                pair[1].addTo(map);
                loaded[pair[0]] = pair[1].getLayers().length;
              });
              L.control.layers(null, overlays, {collapsed: false}).addTo(map);
              var legend = L.control({position: 'bottomright'});
              legend.onAdd = function () {
                var div = L.DomUtil.create('div', 'legend'), meta = data.hex.geospend || {};
                var html = '<b>Hex grid: share of the largest cell total</b><br>';
                for (var k = 0; k < ramp.length; k++) {
                  html += '<i style="background:' + ramp[k] + '"></i>' + Math.round(100 * k / ramp.length) + '–' +
                          Math.round(100 * (k + 1) / ramp.length) + ' %<br>';
                }
                html += (meta.currency ? text(meta.currency) + ', ' : '') + 'cells of ' + text(meta.grid && meta.grid.cell_m) + ' m';
                div.innerHTML = html;
                return div;
              };
              legend.addTo(map);
              var bounds = hex.getBounds();
              if (bounds.isValid()) { map.fitBounds(bounds, {padding: [20, 20]}); } else { map.setView([0, 0], 2); }
              document.getElementById('geospend-status').textContent =
                JSON.stringify({loaded: loaded, errors: window.geospendErrors, leaflet: L.version});
            })();
            </script>
            </body>
            </html>

            """
    }

    static func escapeHTML(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
