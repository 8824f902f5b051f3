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
/// let bundle = try await MapBundle.contents(MapExportRequest(filter: ExpenseFilter(userID: "user1")), store: store)
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
        tiles: String? = nil, leaflet: String = debianLeaflet, leafletLicense: String = debianLeafletLicense,
        budgetZones: [BudgetSummary] = []
    ) async throws -> (files: [File], summaries: [String: MapExportSummary]) {
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

        // Every layer from one snapshot: a bundle's layers agree with each other.
        let layerBytes = try await store.read { reader in
            try layers.map { name, _, layer in
                let geojson = ByteSink()
                let summary = try MapExport.geoJSON(layer(cellMeters), request, reader: reader, to: geojson)
                return (name, summary, geojson.bytes)
            }
        }
        var summaries: [String: MapExportSummary] = [:]
        let script = ByteSink()
        for (name, summary, bytes) in layerBytes {
            summaries[name] = summary
            files.append(File(path: "\(name).geojson", bytes: bytes))
            script.ascii("geospendLayer(")
            script.jsonString(name)
            script.ascii(", ")
            bytes.withUnsafeBufferPointer { script.rawBytes($0) }
            script.ascii(");\n")
        }
        // Zone budgets (issue 17): each zone with its percentage used.
        let zones = Array(zoneBudgetsGeoJSON(budgetZones).serialized(pretty: false).utf8)
        files.append(File(path: "budgets.geojson", bytes: zones))
        script.ascii("geospendLayer(\"budgets\", ")
        zones.withUnsafeBufferPointer { script.rawBytes($0) }
        script.ascii(");\n")
        files.append(File(path: "layers.js", bytes: script.bytes))
        files.append(File(path: "index.html", bytes: Array(page(request: request, tiles: tiles).utf8)))
        return (files, summaries)
    }

    /// The user's zone budgets as GeoJSON: a circle zone as its centre Point with `radius_m`
    /// (the page draws the circle in metres), a polygon zone as its MultiPolygon; properties
    /// `budget_id`, `name`, `percentage_used`, `spent`, `amount`, `currency`, `as_of`.
    static func zoneBudgetsGeoJSON(_ summaries: [BudgetSummary]) -> JSONOutput {
        .object([
            ("type", .string("FeatureCollection")),
            ("features", .array(summaries.compactMap { s in
                guard let zone = s.budget.zone, case .object(let z) = BudgetJSON.zone(zone) else { return nil }
                let geometry: JSONOutput, radius: JSONOutput
                switch zone {
                case .circle(let c, let r):
                    geometry = .object([("type", .string("Point")), ("coordinates", .array([.number(c.longitude, decimals: 10), .number(c.latitude, decimals: 10)]))])
                    radius = .meters(r.meters)
                case .polygon:
                    geometry = z.first { $0.0 == "geometry" }?.1 ?? .null
                    radius = .null
                }
                return .object([
                    ("type", .string("Feature")), ("geometry", geometry),
                    ("properties", .object([
                        ("budget_id", .integer(s.budget.id)), ("name", .string(s.budget.name)),
                        ("percentage_used", BudgetJSON.percentage(s.percentageHundredths)),
                        ("spent", BudgetJSON.money(s.spentMinor, s.budget.amount.currency)), ("amount", .string(s.budget.amount.decimalString)),
                        ("currency", .string(s.budget.amount.currency.code)), ("as_of", .string("\(s.asOf)")), ("radius_m", radius),
                    ])),
                ])
            })),
        ])
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

    /// The grid's ramp on the page: ColorBrewer YlOrRd (the same as the places' simplestyle
    /// `marker-color` in the GeoJSON, for geojson.io); places on the page get Purples instead,
    /// so a place is never read as a cell.
    static let gridRamp = PlacesLayer.ramp
    /// ColorBrewer Purples, light to dark.
    static let placesRamp = ["#f2f0f7", "#cbc9e2", "#9e9ac8", "#756bb1", "#54278f"]

    /// The page: Leaflet, a layer switcher, a title (who, period, currency), a scale bar, a
    /// legend per layer in the layer's currency, popups (`geospendPopups`: cells, expenses with
    /// their merchant, places), and OpenStreetMap's attribution while places from it are shown.
    /// It reports what it loaded in `#geospend-status` (JSON), which the browser test reads.
    static func page(request: MapExportRequest, tiles: String?) -> String {
        let f = request.filter
        let who = f.userID.map { "user \($0)" } ?? "all users"
        let tileJS = tiles.map { url in
            "L.tileLayer(\(scriptJSON(.string(url))), {maxZoom: 19, attribution: '&copy; OpenStreetMap contributors'}).addTo(map);"
        } ?? "// No basemap: pass --tiles URL for one."
        let layerTitles = scriptJSON(.object(layers.map { ($0.name, .string($0.title)) }))
        let ramps = scriptJSON(.object([
            ("grid", .array(gridRamp.map { .string($0) })), ("places", .array(placesRamp.map { .string($0) })),
        ]))
        let tileURL = scriptJSON(tiles.map { .string($0) } ?? .null)
        let subject = scriptJSON(.object([("who", .string(who)), ("from", .text(f.from?.text)), ("to", .text(f.to?.text))]))
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
              #geospend-title { position: absolute; top: 10px; left: 60px; z-index: 1000; background: white; padding: 6px 10px;
                                font: bold 15px/1.3 sans-serif; border-radius: 4px; box-shadow: 0 0 6px rgba(0,0,0,.3); }
              .legend { background: white; padding: 6px 8px; font: 12px/1.4 sans-serif; border-radius: 4px; box-shadow: 0 0 6px rgba(0,0,0,.3); }
              .legend i { display: inline-block; width: 14px; height: 14px; margin-right: 6px; vertical-align: middle; opacity: .8; }
              .legend .dot { border-radius: 50%; opacity: .6; margin: 0 4px 0 8px; }
              #geospend-status { display: none; }
            </style>
            </head>
            <body>
            <div id="map"></div>
            <div id="geospend-title"></div>
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
              var data = window.geospendData, titles = \(layerTitles), ramps = \(ramps), tiles = \(tileURL), subject = \(subject);
              var meta = {hex: data.hex.geospend || {}, points: data.points.geospend || {}, places: data.places.geospend || {}};
              var map = L.map('map', {preferCanvas: true});
              \(tileJS)
              function colour(ramp, w) { return ramp[Math.min(ramp.length - 1, Math.floor(w * ramp.length))]; }
              function text(s) { var d = document.createElement('div'); d.textContent = s == null ? '–' : String(s); return d.innerHTML; }
              // Money in the layer's currency ("€1,234.50"); whole units when `whole` (legend bounds).
              function money(v, currency, whole) {
                if (v == null) { return '–'; }
                try {
                  var digits = new Intl.NumberFormat('en', {style: 'currency', currency: currency}).resolvedOptions().maximumFractionDigits;
                  if (whole) { digits = 0; }
                  return new Intl.NumberFormat('en', {style: 'currency', currency: currency, minimumFractionDigits: digits,
                                                      maximumFractionDigits: digits}).format(v);
                } catch (e) { return Number(v).toFixed(whole ? 0 : 2) + ' ' + currency; }
              }
              function maxOf(fc, key) { return fc.features.reduce(function (m, f) { return Math.max(m, Number(f.properties[key]) || 0); }, 0); }

              // Popups: built from the layers' properties, every stored text escaped.
              var placeNames = {};
              data.places.features.forEach(function (f) { placeNames[f.properties.place_id] = f.properties.name; });
              var popups = window.geospendPopups = {
                cell: function (p) {
                  return '<b>' + text(p.cell_id) + '</b><br>' + p.count + ' expenses<br>total ' + money(p.total, p.currency) +
                         '<br>average ' + money(p.average, p.currency);
                },
                // The merchant as imported; else the expense's store, named as the places layer names it.
                point: function (p) {
                  var merchant = p.merchant != null ? p.merchant : p.store_id == null ? null : (placeNames[p.store_id] || p.store_id);
                  return '<b>' + money(p.amount, p.currency) + '</b>' + (merchant == null ? '' : ' at ' + text(merchant)) +
                         '<br>' + text(p.occurred_at) + '<br>' + text(p.category);
                },
                place: function (p) {
                  return '<b>' + text(p.name || p.place_id) + '</b> (' + text(p.kind) + ')<br>' + p.count + ' visits, total ' +
                         money(p.total, p.currency) + '<br>average ' + money(p.average, p.currency) + ', median ' +
                         money(p.median, p.currency) + (p.first_visit ? '<br>first ' + text(p.first_visit) + '<br>last ' + text(p.last_visit) : '');
                }
              };

              var overlays = {}, loaded = {};
              var hex = L.geoJSON(data.hex, {
                style: function (f) { return {color: '#555', weight: 0.5, fillColor: colour(ramps.grid, f.properties.weight), fillOpacity: 0.6}; },
                onEachFeature: function (f, layer) { layer.bindPopup(popups.cell(f.properties)); }
              });
              var points = L.geoJSON(data.points, {
                pointToLayer: function (f, latlng) {
                  return L.circleMarker(latlng, {radius: 2 + 6 * f.properties.weight, color: '#08519c', weight: 1, fillOpacity: 0.5});
                },
                onEachFeature: function (f, layer) { layer.bindPopup(popups.point(f.properties)); }
              });
              var osm = meta.places.attribution;
              var places = L.geoJSON(data.places, {
                // Shown in the map's attribution while the places layer is on.
                attribution: osm ? '<span id="geospend-osm">Places &copy; <a href="' + text(osm.url) + '">OpenStreetMap contributors</a>, ' +
                                   text(osm.license) + '</span>' : null,
                pointToLayer: function (f, latlng) {
                  var p = f.properties, r = {small: 5, medium: 8, large: 11}[p['marker-size']] || 5;
                  return L.circleMarker(latlng, {radius: r, color: '#222', weight: 1, fillColor: colour(ramps.places, p.weight), fillOpacity: 0.9});
                },
                onEachFeature: function (f, layer) { layer.bindPopup(popups.place(f.properties)); }
              });
              var byName = {hex: hex, points: points, places: places};
              ['hex', 'points', 'places'].forEach(function (name) {
                overlays[titles[name]] = byName[name];
                byName[name].addTo(map);
                loaded[name] = byName[name].getLayers().length;
              });
              // Zone budgets: each zone outlined, labelled with its name and percentage used.
              var zoneStyle = {color: '#d95f0e', weight: 2, fillOpacity: 0.08, dashArray: '6 4'};
              var zones = L.geoJSON(data.budgets, {
                style: function () { return zoneStyle; },
                pointToLayer: function (f, latlng) { return L.circle(latlng, L.extend({radius: f.properties.radius_m}, zoneStyle)); },
                onEachFeature: function (f, layer) {
                  var p = f.properties;
                  layer.bindTooltip(text(p.name) + ': ' + text(p.percentage_used) + ' %', {permanent: true, direction: 'center'});
                  layer.bindPopup('<b>' + text(p.name) + '</b><br>' + money(p.spent, p.currency) + ' of ' + money(p.amount, p.currency) +
                                  ' (' + text(p.percentage_used) + ' %)<br>as of ' + text(p.as_of));
                }
              });
              loaded.budgets = zones.getLayers().length;
              if (loaded.budgets) { overlays['Zone budgets (% used)'] = zones; zones.addTo(map); }
              L.control.layers(null, overlays, {collapsed: false}).addTo(map);
              L.control.scale({imperial: false, maxWidth: 150}).addTo(map);

              // Title: who, the period (the filter's, else the expenses' first and last day), the currency.
              var days = data.points.features.map(function (f) { return String(f.properties.occurred_at).slice(0, 10); }).sort();
              var period = subject.from || subject.to ? (subject.from || '…') + ' to ' + (subject.to || '…')
                         : days.length ? days[0] + ' to ' + days[days.length - 1] : 'all dates';
              var currency = meta.hex.currency || meta.points.currency || meta.places.currency;
              document.getElementById('geospend-title').textContent =
                'GeoSpend — ' + subject.who + ', ' + period + (currency ? ', ' + currency : '');

              // One legend per layer, in money: a ramp's class k covers weights [k/n, (k+1)/n) of
              // the largest value, so its bounds are k/n and (k+1)/n of that value.
              function rampRows(ramp, largest, currency) {
                var whole = largest / ramp.length >= 10, html = '';
                for (var k = 0; k < ramp.length; k++) {
                  html += '<div class="legend-row"><i style="background:' + ramp[k] + '"></i>' + money(largest * k / ramp.length, currency, whole) +
                          ' – ' + money(largest * (k + 1) / ramp.length, currency, whole) + '</div>';
                }
                return html;
              }
              function suppressed(m) {
                var n = m.suppression && m.suppression.suppressed_features;
                return n ? '<br>' + n + ' left out (fewer than ' + m.suppression.min_users + ' users or ' + m.suppression.min_count + ' expenses)' : '';
              }
              var legends = {
                hex: function () {
                  var m = meta.hex, c = m.currency;
                  return '<b>' + text(titles.hex) + ': ' + text(c) + ' per ' + text(m.grid && m.grid.cell_m) + ' m cell</b>' +
                         rampRows(ramps.grid, maxOf(data.hex, 'total'), c) + suppressed(m);
                },
                points: function () {
                  var c = meta.points.currency, largest = maxOf(data.points, 'amount'), html = '<b>' + text(titles.points) + ': amount</b><div class="legend-row">';
                  [1, 0.5, 0.1].forEach(function (w) {
                    var d = 2 * (2 + 6 * w);
                    html += '<i class="dot" style="background:#08519c;width:' + d + 'px;height:' + d + 'px"></i>' + money(largest * w, c);
                  });
                  return html + '</div>';
                },
                places: function () {
                  var m = meta.places, c = m.currency;
                  return '<b>' + text(titles.places) + ': ' + text(c) + ' per place</b>' + rampRows(ramps.places, maxOf(data.places, 'total'), c) +
                         suppressed(m);
                }
              };
              var legendDivs = {};
              ['places', 'points', 'hex'].forEach(function (name) {
                if (!loaded[name]) { return; }
                var control = L.control({position: 'bottomright'});
                control.onAdd = function () {
                  var div = legendDivs[name] = L.DomUtil.create('div', 'legend');
                  div.id = 'legend-' + name;
                  div.innerHTML = legends[name]();
                  return div;
                };
                control.addTo(map);
              });
              // A layer switched off takes its legend with it.
              function toggle(e, shown) {
                Object.keys(byName).forEach(function (name) {
                  if (byName[name] === e.layer && legendDivs[name]) { legendDivs[name].style.display = shown ? '' : 'none'; }
                });
              }
              map.on('overlayadd', function (e) { toggle(e, true); });
              map.on('overlayremove', function (e) { toggle(e, false); });

              var bounds = hex.getBounds();
              if (!bounds.isValid()) { bounds = points.getBounds().extend(places.getBounds()); }
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
