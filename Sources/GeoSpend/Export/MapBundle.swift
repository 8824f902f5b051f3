import Foundation

/// `geospend export bundle`: a folder that shows a user's spending on a Leaflet map with no
/// network — the points, a hex grid and the places as GeoJSON files (for QGIS and friends), the
/// same layers in `layers.js` (pages opened from disk cannot `fetch` files), Leaflet's own
/// JS/CSS/images and licence copied from Debian's `libjs-leaflet`, and `index.html`.
///
/// This builds the files in memory; the caller writes them (the CLI through its one safe writer,
/// which checks every path before anything is written).
///
/// ```swift
/// let bundle = try MapBundle.contents(MapExportRequest(filter: ExpenseFilter(userID: "user1")), store: store)
/// for file in bundle.files { /* write file.bytes to "user1-map/" + file.path */ }
/// ```
public enum MapBundle {
    /// Where Debian's `libjs-leaflet` puts Leaflet (1.7.1 on Debian 12), and its licence.
    public static let debianLeaflet = "/usr/share/javascript/leaflet"
    public static let debianLeafletLicense = "/usr/share/doc/libjs-leaflet/copyright"

    /// In every `index.html` a bundle has: how a folder is recognised as an earlier bundle.
    public static let pageMarker = "<pre id=\"geospend-status\">"

    /// One file of the bundle; `path` is relative to the bundle's folder (`leaflet/leaflet.js`).
    public struct File: Sendable {
        public let path: String
        public let bytes: [UInt8]
    }

    /// The layers of a bundle, in drawing order (bottom first).
    static let layers: [(name: String, title: String, layer: @Sendable (Double) -> MapLayer)] = [
        ("hex", "Hex grid (total)", { .grid(.hex, cellMeters: $0, metric: .total) }),
        ("points", "Expenses", { _ in .points }),
        ("places", "Places", { _ in .places }),
    ]

    /// The bundle's files, subfolders before their files, `index.html` last.
    /// - Parameters:
    ///   - cellMeters: the hex grid's cell (edge) size.
    ///   - tiles: an XYZ tile URL template for a basemap (e.g. OpenStreetMap's), checked by
    ///     `tileTemplateProblem`; none offline.
    /// - Returns: the files, and each layer's summary by name.
    public static func contents(
        _ request: MapExportRequest, store: some ExpenseStore, cellMeters: Double = 250,
        tiles: String? = nil, leaflet: String = debianLeaflet, leafletLicense: String = debianLeafletLicense
    ) throws -> (files: [File], summaries: [String: MapExportSummary]) {
        if let tiles, let problem = tileTemplateProblem(tiles) { throw ExportError.writeFailed("--tiles \(tiles): \(problem)") }
        let fm = FileManager.default
        guard fm.fileExists(atPath: leaflet + "/leaflet.js") else {
            throw ExportError.writeFailed("Leaflet not found at \(leaflet) (install the Debian package libjs-leaflet)")
        }
        var files: [File] = []
        do {
            let images = try fm.contentsOfDirectory(atPath: leaflet + "/images").sorted().map { "images/" + $0 }
            for name in ["leaflet.js", "leaflet.css"] + images {
                files.append(File(path: "leaflet/" + name, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: leaflet + "/" + name)))))
            }
            if fm.fileExists(atPath: leafletLicense) {
                files.append(File(path: "leaflet/LICENSE", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: leafletLicense)))))
            }
        } catch {
            throw ExportError.writeFailed("cannot read Leaflet at \(leaflet): \(error.localizedDescription)")
        }

        var summaries: [String: MapExportSummary] = [:]
        let script = ByteSink()
        for (name, _, layer) in layers {
            let geojson = ByteSink()
            summaries[name] = try MapExport.geoJSON(layer(cellMeters), request, store: store, to: geojson)
            let bytes = geojson.bytes
            files.append(File(path: "\(name).geojson", bytes: bytes))
            script.ascii("geospendLayer(")
            script.jsonString(name)
            script.ascii(", ")
            bytes.withUnsafeBufferPointer { script.rawBytes($0) }
            script.ascii(");\n")
        }
        files.append(File(path: "layers.js", bytes: script.bytes))
        files.append(File(path: "index.html", bytes: Array(page(request: request, tiles: tiles).utf8)))
        return (files, summaries)
    }

    /// Why `url` is not an XYZ tile URL template a page can take, or nil when it is: http or
    /// https, `{z}`, `{x}` and `{y}` in it, and none of the characters that could end the string
    /// or the script it lands in (quotes, `<`, `>`, backslash, backquote, spaces, controls).
    public static func tileTemplateProblem(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            return "a tile URL starts with https:// or http://"
        }
        if let bad = url.unicodeScalars.first(where: {
            $0.value < 0x21 || $0.value == 0x7F || "\"'<>\\`".unicodeScalars.contains($0)
                || $0.properties.isWhitespace || $0.properties.generalCategory == .control
                || $0.properties.generalCategory == .format || $0.value == 0x2028 || $0.value == 0x2029
        }) {
            return "character U+\(String(bad.value, radix: 16, uppercase: true)) is not allowed in a tile URL (percent-encode it)"
        }
        for part in ["{z}", "{x}", "{y}"] where !url.contains(part) {
            return "a tile URL template has {z}, {x} and {y}, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png"
        }
        return nil
    }

    /// JSON to put inside an inline `<script>`: `<`, `>` and `&` escaped (`\u003c`…), so no
    /// value can close the script or open a comment; U+2028/2029 are escaped by the serializer.
    static func scriptJSON(_ value: JSONOutput) -> String {
        value.serialized(pretty: false).replacingOccurrences(of: "<", with: "\\u003c")
            .replacingOccurrences(of: ">", with: "\\u003e").replacingOccurrences(of: "&", with: "\\u0026")
    }

    /// The page: Leaflet, a layer switcher, a legend of the grid's colours, popups with each
    /// place's figures. It reports what it loaded in `#geospend-status` (JSON), which the
    /// browser test reads.
    static func page(request: MapExportRequest, tiles: String?) -> String {
        let who = request.filter.userID.map { "user \($0)" } ?? "all users"
        let tileJS = tiles.map { url in
            "L.tileLayer(\(scriptJSON(.string(url))), {maxZoom: 19, attribution: '&copy; OpenStreetMap contributors'}).addTo(map);"
        } ?? "// No basemap: pass --tiles URL for one."
        let layerTitles = scriptJSON(.object(layers.map { ($0.name, .string($0.title)) }))
        let ramp = scriptJSON(.array(PlacesLayer.ramp.map { .string($0) }))
        let tileURL = scriptJSON(tiles.map { .string($0) } ?? .null)
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
              var data = window.geospendData, titles = \(layerTitles), ramp = \(ramp), tiles = \(tileURL);
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
                JSON.stringify({loaded: loaded, errors: window.geospendErrors, leaflet: L.version, tiles: tiles});
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
