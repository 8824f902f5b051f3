import Foundation
import GeoSpendTestSupport
import Testing

/// The bundle's map page as a reader sees it (headless Chromium, no network): what a map needs
/// to be read — a title, a legend per layer in money, a scale bar, OpenStreetMap's attribution
/// where its places are shown — and popups that name the merchant with stored text escaped.
/// The places layer's provenance carries the attribution exactly when OSM-sourced stores are in it.
@Suite(.serialized) final class MapPageTests {
    let dir = Reliability.scratch("map")
    deinit { try? FileManager.default.removeItem(at: dir) }

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args)
    }

    static let chromiumFlags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=5000",
                                "--window-size=1200,800"]
    static func chromium() throws -> String {
        try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) })
    }

    /// The visible text of the element whose opening tag holds `marker`, up to the next Leaflet
    /// control (or 3,000 characters), tags removed and entities decoded. Only the rendered part
    /// is searched — the map and title come before the scripts, whose source holds the same text.
    static func text(after marker: String, in dom: String) -> String? {
        let rendered = dom.components(separatedBy: "<script")[0]
        guard let start = rendered.range(of: marker) else { return nil }
        var rest = rendered[start.upperBound...].prefix(3000)
        if let next = rest.range(of: "leaflet-control") { rest = rest[..<next.lowerBound] }
        return String(rest).replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&nbsp;", with: " ")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `€1,234` (whole units, the largest rounded half up) or `€1,234.50`, as the page's
    /// `Intl.NumberFormat('en', {style: 'currency'})` writes EUR.
    static func euros(_ value: Double, whole: Bool) -> String {
        let digits = whole ? String(Int64(value.rounded())) : String(format: "%.2f", value)
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        var integer = String(parts[0]), grouped = ""
        while integer.count > 3 { grouped = "," + integer.suffix(3) + grouped; integer = String(integer.dropLast(3)) }
        return "€" + integer + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }

    static func layer(_ bundle: String, _ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/\(name).geojson"))) as? [String: Any])
    }

    static func largest(_ layer: [String: Any], _ key: String) -> Double {
        ((layer["features"] as? [[String: Any]]) ?? []).compactMap { ($0["properties"] as? [String: Any])?[key] as? Double }.max() ?? 0
    }

    /// What `bundlePageLoadsEveryLayerInChromium` checks in the rendered DOM of a bundle with
    /// data in every layer: the title names who, the period and the currency; each layer's
    /// legend gives money bounds up to the layer's largest value (the grid's largest cell total,
    /// the largest expense, the largest place total); a metric scale bar; the OSM attribution.
    static func expectTitleLegendsScaleAndAttribution(dom: String, bundle: String, who: String, currency: String) throws {
        let title = try #require(text(after: #"id="geospend-title">"#, in: dom), "no title")
        #expect(title.contains("GeoSpend — \(who), 2025-") && title.contains(currency), "title: \(title)")

        let hex = try layer(bundle, "hex"), points = try layer(bundle, "points"), places = try layer(bundle, "places")
        let cellMax = largest(hex, "total"), placeMax = largest(places, "total"), amountMax = largest(points, "amount")
        #expect(cellMax > 0 && placeMax > 0 && amountMax > 0)
        let hexLegend = try #require(text(after: #"id="legend-hex">"#, in: dom), "no grid legend")
        #expect(hexLegend.contains("\(currency) per 250 m cell"), "\(hexLegend)")
        #expect(hexLegend.contains("€0 – ") && hexLegend.contains(" – " + euros(cellMax, whole: cellMax / 5 >= 10)), "\(hexLegend) (largest \(cellMax))")
        #expect(!hexLegend.contains("%"), "a share, not money: \(hexLegend)")
        let pointsLegend = try #require(text(after: #"id="legend-points">"#, in: dom), "no expenses legend")
        #expect(pointsLegend.contains(euros(amountMax, whole: false)), "\(pointsLegend) (largest \(amountMax))")
        let placesLegend = try #require(text(after: #"id="legend-places">"#, in: dom), "no places legend")
        #expect(placesLegend.contains("\(currency) per place") && placesLegend.contains(" – " + euros(placeMax, whole: placeMax / 5 >= 10)),
                "\(placesLegend) (largest \(placeMax))")

        #expect(dom.range(of: #"class="leaflet-control-scale-line"[^>]*>[0-9]+ k?m<"#, options: .regularExpression) != nil, "no metric scale bar")
        let osm = try #require(text(after: #"id="geospend-osm">"#, in: dom), "no OpenStreetMap attribution")
        #expect(osm.contains("© OpenStreetMap contributors") && osm.contains("ODbL"), "\(osm)")
        #expect(dom.components(separatedBy: "<script")[0].contains(#"href="https://www.openstreetmap.org/copyright""#))
    }

    /// The merchant of cy's expense, which has no store: markup and quotes, shown as text.
    static let merchantOnly = #"Bäckerei "Ö" <img src=x onerror="window.pwned=2"> & Söhne"#

    /// A store named with markup, imported from GeoJSON with an `osm_id` (so it is OSM's), and
    /// one from CSV (not OSM's); ann's expenses at the first, bob's at the second, and cy's with
    /// a merchant but no store.
    func database() throws -> String {
        let db = dir.appendingPathComponent("m.sqlite").path
        let osm = dir.appendingPathComponent("osm.geojson").path, csv = dir.appendingPathComponent("own.csv").path
        let expenses = dir.appendingPathComponent("e.csv").path
        try #"""
            {"type":"FeatureCollection","features":[{"type":"Feature","id":101,"geometry":{"type":"Point","coordinates":[24.9414,60.171]},
             "properties":{"osm_id":101,"name":"Kiosk <img src=x onerror=\"window.pwned=1\"> & Co","kind":"shop:kiosk"}}]}
            """#.write(toFile: osm, atomically: true, encoding: .utf8)
        try "id,name,kind,lat,lon\nown1,Own shop,shop:gift,60.1690,24.9390\n".write(toFile: csv, atomically: true, encoding: .utf8)
        try """
            id,user,amount,currency,occurred_at,lat,lon,store_id,merchant
            e1,ann,4.50,EUR,2025-03-01T10:00:00+02:00,60.1710,24.9414,101,
            e2,ann,6.00,EUR,2025-03-02T10:00:00+02:00,60.1711,24.9415,101,
            e3,bob,9.00,EUR,2025-03-02T11:00:00+02:00,60.1690,24.9390,own1,
            e4,cy,3.20,EUR,2025-03-03T09:00:00+02:00,60.1650,24.9300,,"\(Self.merchantOnly.replacingOccurrences(of: "\"", with: "\"\""))"

            """.write(toFile: expenses, atomically: true, encoding: .utf8)
        for args in [["import", "stores", osm], ["import", "stores", csv], ["import", "expenses", expenses]] {
            let r = try geospend(args + ["--db", db])
            #expect(r.status == 0, "\(args): \(r.err)")
        }
        return db
    }

    /// OSM's attribution in the places layer's provenance when a published place is an
    /// OSM-sourced store (ann's kiosk), and none for a layer of one's own stores only (bob's).
    @Test func placesProvenanceAttributesOpenStreetMapForItsStores() throws {
        let db = try database()
        func provenance(_ user: String) throws -> [String: Any] {
            let r = try geospend(["export", "places", "--db", db, "--user", user])
            #expect(r.status == 0, "\(r.err)")
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            #expect((doc["features"] as? [Any])?.count == 1)
            return try #require(doc["geospend"] as? [String: Any])
        }
        let attribution = try #require(try provenance("ann")["attribution"] as? [String: String])
        #expect(attribution == ["text": "© OpenStreetMap contributors", "license": "ODbL-1.0", "url": "https://www.openstreetmap.org/copyright"])
        #expect(try provenance("bob")["attribution"] == nil)
    }

    /// The page's popup builders, run in Chromium on the bundle's own data: an expense's popup
    /// names its merchant — the merchant as imported, else its store's name — as text: the markup
    /// shows as written and creates no element; so does the place's popup.
    @Test func popupsNameTheMerchantEscaped() throws {
        let db = try database()
        let name = #"Kiosk <img src=x onerror="window.pwned=1"> & Co"#
        // ann's expenses have a store and no merchant: the store's name.
        let ann = try popups(db, user: "ann")
        // Values taken out before #expect: an optional chain inside it let a false check pass.
        for kind in ["point", "place"] {
            let text = ann[kind]?["text"] as? String ?? "", elements = ann[kind]?["elements"] as? Int
            #expect(text.contains(name), "\(kind) popup: \(text)")
            #expect(elements == 0, "\(kind) popup made elements from the name")
        }
        let point = ann["point"]?["text"] as? String ?? ""
        #expect(point.contains("€4.50 at " + name) || point.contains("€6.00 at " + name))
        // cy's expense has a merchant and no store: the merchant.
        let cy = try popups(db, user: "cy")
        let shown = cy["point"]?["text"] as? String ?? ""
        #expect(shown.hasPrefix("€3.20 at " + Self.merchantOnly + "2025-03-03T09:00:00+02:00"), "\(shown)")
        let elements = cy["point"]?["elements"] as? Int
        #expect(elements == 0, "the point popup made elements from the merchant")
    }

    /// The first expense's and place's popups of `user`'s bundle, as the page renders them: its
    /// own index.html plus a probe script that renders them into a detached element and reports
    /// the text shown and how many img/script elements the markup made.
    func popups(_ db: String, user: String) throws -> [String: [String: Any]] {
        let bundle = dir.appendingPathComponent("map-\(user)").path
        let r = try geospend(["export", "bundle", "--db", db, "--user", user, "--out", bundle])
        #expect(r.status == 0, "\(r.err)")
        let page = try String(contentsOfFile: bundle + "/index.html", encoding: .utf8)
        let probe = """
            <pre id="probe"></pre><script>
            (function () {
              var d = window.geospendData, out = {};
              ['point', 'place'].forEach(function (kind) {
                var div = document.createElement('div');
                div.innerHTML = window.geospendPopups[kind]((kind === 'point' ? d.points : d.places).features[0].properties);
                out[kind] = {text: div.textContent, elements: div.querySelectorAll('img,script').length};
              });
              document.getElementById('probe').textContent = JSON.stringify(out);
            })();
            </script>
            </body>
            """
        try page.replacingOccurrences(of: "</body>", with: probe).write(toFile: bundle + "/probe.html", atomically: true, encoding: .utf8)
        let dom = try runProgram(try Self.chromium(), Self.chromiumFlags + ["--dump-dom", URL(fileURLWithPath: bundle + "/probe.html").absoluteString])
        let raw = try #require(dom.out.range(of: #"<pre id="probe">[^<]+</pre>"#, options: .regularExpression).map { String(dom.out[$0]) },
                               "the probe did not run\n\(dom.err.suffix(2000))")
        let json = raw.replacingOccurrences(of: #"<pre id="probe">"#, with: "").replacingOccurrences(of: "</pre>", with: "")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: Any]])
    }
}
