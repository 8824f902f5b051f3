import Foundation
import GeoSpendTestSupport
import Testing

/// The web app at `/` in Debian's headless Chromium, driven by Selenium through chromium-driver
/// (Tests/validators/webapp_e2e.py), against the real `geospend serve` on loopback with the
/// sample data's two users: what a person sees equals what the CLI says for the same user and
/// month, the map has its basemap and the month's features, the other user's data never shows,
/// the token leaves the address bar and the logs, and axe-core finds no serious violation, at
/// desktop and phone size. The browser only observes; every assertion is here.
@Suite(.serialized) struct WebAppBrowserTests {
    let f: ServiceFixture
    static let month = "2025-03"
    /// bob's expense in the month, at a position in the map's extent: its merchant and id must
    /// never reach alice's page.
    static let bobMerchant = "Bob Only Secret Kiosk"
    /// alice's, with markup: shown as text, never made into an element.
    static let aliceMerchant = #"Kahvila <img src=x onerror="window.pwned=1"> & Co"#

    init() throws {
        f = try ServiceFixture()
        let csv = f.dir.appendingPathComponent("webapp.csv")
        try """
            id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes
            wa1,\(ServiceFixture.alice),expense,7.25,EUR,2025-03-14T12:00:00+02:00,,Food,"\(Self.aliceMerchant.replacingOccurrences(of: "\"", with: "\"\""))",60.1702,24.9402,10,,
            wb1,\(ServiceFixture.bob),expense,912.34,EUR,2025-03-14T12:30:00+02:00,,Food,\(Self.bobMerchant),60.1705,24.9410,10,,

            """.write(to: csv, atomically: true, encoding: .utf8)
        _ = try f.cli(["import", "expenses", csv.path], db: f.db)
        _ = try f.cli(["budgets", "add", "--user", ServiceFixture.alice, "--name", "Eating out", "--amount", "300.00", "--currency", "EUR",
                       "--from", "2025-01-01", "--to", "2025-12-31", "--every", "month"], db: f.db)
    }

    /// What the browser saw (webapp_e2e.py's JSON).
    func browse(_ server: LiveServerTests.Server, token: String, size: String, extra: [String] = []) throws -> [String: Any] {
        let python = ServiceFixture.repo.appendingPathComponent(".venv/bin/python").path
        let r = try runProgram(
            python, ["Tests/validators/webapp_e2e.py", "--url", "http://127.0.0.1:\(server.port)", "--token", token,
                     "--month", Self.month, "--size", size] + extra,
            directory: ServiceFixture.repo, environment: ServiceFixture.environment, timeout: .seconds(600))
        try #require(r.status == 0, "webapp_e2e.py: \(r.err.suffix(3000))")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    }

    /// The CLI's layer's feature count for alice in the month.
    func layerCount(_ layer: [String]) throws -> Int {
        let out = try f.cli(["export"] + layer + ["--user", ServiceFixture.alice, "--from", Self.month + "-01", "--to", Self.month + "-31"], db: f.db)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        return try #require(doc["features"] as? [Any]).count
    }

    @Test(arguments: ["1280x900", "390x844"])
    func monthScreenShowsTheCLIsFiguresAndTheMap(size: String) throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let token = try #require(f.tokens["alice"])
        let seen = try browse(server, token: token, size: size, extra: ["--axe"])
        #expect(seen["error"] is NSNull, "\(seen["error"] ?? "")")

        // Signed in from the fragment, which is then gone from the address bar.
        #expect(seen["address"] as? String == "http://127.0.0.1:\(server.port)/")
        #expect((seen["ready_marks"] as? [Double])?.count == 1, "performance.mark(\"geospend-ready\"): \(seen["ready_marks"] ?? "")")

        // month-spent: one element per currency, the text as `summary --format json` prints it.
        let summaryJSON = try f.cli(["summary", "--user", ServiceFixture.alice, "--month", Self.month, "--format", "json"], db: f.db)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(summaryJSON.utf8)) as? [String: Any])
        let expected = try #require(summary["currencies"] as? [[String: Any]]).map { [$0["currency"] as? String ?? "", $0["expenses"] as? String ?? ""] }
        let shown = try #require(seen["month_spent"] as? [[String]])
        #expect(!expected.isEmpty)
        #expect(shown == expected, "shown \(shown), summary \(expected)")

        // review-count: the expenses `geotag review` cannot decide.
        let review = try f.cli(["geotag", "review", "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
        let ambiguous = try #require((try JSONSerialization.jsonObject(with: Data(review.utf8)) as? [String: Any])?["ambiguous"] as? [Any])
        #expect(seen["review_count"] as? String == String(ambiguous.count))

        // The map: one container, the basemap pane with every feature of the shipped file drawn.
        #expect(seen["map_containers"] as? Int == 1)
        let basemapFile = try Data(contentsOf: ServiceFixture.repo.appendingPathComponent("Data/helsinki-basemap.geojson"))
        let basemapFeatures = try #require((try JSONSerialization.jsonObject(with: basemapFile) as? [String: Any])?["features"] as? [Any]).count
        let basemap = try #require(seen["basemap"] as? [String: Int], "no [data-layer=basemap] in the map")
        #expect(basemapFeatures > 1000)
        #expect(basemap["features"] == basemapFeatures && basemap["paths"] == basemapFeatures, "\(basemap) of \(basemapFeatures)")
        #expect((basemap["drawn"] ?? 0) > basemapFeatures / 2, "\(basemap)")

        // The month's features: the CLI's layers for alice and the month, each drawn.
        let drawn = try #require(seen["drawn"] as? [String: Int])
        let points = try layerCount(["points"]), hexagons = try layerCount(["grid", "--cell", "250m"]), places = try layerCount(["places"])
        #expect(points > 0 && hexagons > 0 && places > 0)
        #expect(drawn["points"] == points && drawn["hexagons"] == hexagons && drawn["places"] == places, "\(drawn) vs \(points) \(hexagons) \(places)")
        #expect((drawn["device"] ?? 0) + (drawn["inferred"] ?? 0) == points, "\(drawn)")
        #expect(drawn["hexPaths"] == hexagons && drawn["placePaths"] == places, "\(drawn)")

        // Readable as a map: title, legend in money, scale bar, the ODbL credit.
        let title = seen["title"] as? String ?? ""
        #expect(title.contains(Self.month) && title.contains("EUR"), "\(title)")
        let legend = seen["legend"] as? String ?? ""
        #expect(legend.contains("EUR per 250 m hexagon") && legend.contains("€0"), "\(legend)")
        #expect(legend.contains("position inferred (geotag)"), "\(legend)")
        #expect((seen["scale"] as? String)?.range(of: #"^[0-9]+ k?m$"#, options: .regularExpression) != nil, "\(seen["scale"] ?? "")")
        let credit = seen["credit"] as? String ?? ""
        #expect(credit.contains("OpenStreetMap contributors") && credit.contains("ODbL"), "\(credit)")
        #expect(!((seen["places"] as? [String]) ?? []).isEmpty)
        #expect(!((seen["place_expenses"] as? [String]) ?? []).isEmpty, "a click on the top place listed nothing")

        // Only alice's data; markup from the database stays text.
        let text = seen["text"] as? String ?? "", html = seen["html"] as? String ?? ""
        #expect(!text.contains(Self.bobMerchant) && !html.contains(Self.bobMerchant) && !html.contains("912.34") && !html.contains("wb1"))
        #expect(seen["injected"] as? Int == 0)

        // No CSP violation or script error; axe-core: no serious or critical violation.
        #expect((seen["console"] as? [Any])?.isEmpty == true, "\(seen["console"] ?? "")")
        let axe = try #require(seen["axe"] as? [String: [Any]])
        #expect(axe["month"]?.isEmpty == true, "\(axe["month"] ?? [])")
        #expect(axe["review"]?.isEmpty == true, "\(axe["review"] ?? [])")
        // The page fits the viewport's width (no sideways scrolling on a phone).
        #expect((seen["overflow"] as? Int ?? 1) <= 0, "\(seen["overflow"] ?? "")")

        #expect(server.stop() == 0)
        #expect(!server.log.contains(String(token.split(separator: "_").last!)), "the token is in the log")
    }

    /// One click on a candidate store confirms the expense: the CLI then shows it at that store,
    /// and the review queue is one shorter.
    @Test func confirmingAReviewItemPlacesTheExpense() throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let seen = try browse(server, token: try #require(f.tokens["aliceWrite"]), size: "1280x900", extra: ["--confirm"])
        let confirmed = try #require(seen["confirmed"] as? [String: String])
        let id = try #require(confirmed["expense"]), store = try #require(confirmed["store"])
        let shown = try f.cli(["expenses", "show", id, "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
        let expense = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        #expect(expense["store_id"] as? String == store, "\(shown)")
        let before = try #require(Int(seen["review_count"] as? String ?? ""))
        #expect(seen["review_count_after"] as? String == String(before - 1))
        #expect((seen["console"] as? [Any])?.isEmpty == true, "\(seen["console"] ?? "")")
    }

    /// `/` and its files carry the map page's headers; the basemap is gzipped when asked.
    @Test func pageHeadersAndTheGzippedBasemap() throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        for path in ["/", "/app/app.js", "/app/app.css"] {
            let r = try runProgram("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "http://127.0.0.1:\(server.port)\(path)"])
            let head = r.out.lowercased()
            #expect(head.hasPrefix("http/1.1 200"), "\(path): \(r.out)")
            #expect(head.contains("content-security-policy: default-src 'none'; script-src 'self'; style-src 'self';"), "\(path)")
            #expect(head.contains("x-content-type-options: nosniff") && head.contains("referrer-policy: no-referrer"), "\(path)")
        }
        let plain = try Data(contentsOf: ServiceFixture.repo.appendingPathComponent("Data/helsinki-basemap.geojson"))
        let file = f.dir.appendingPathComponent("basemap.gz")
        let gz = try runProgram("/usr/bin/curl", ["-s", "-D", "-", "-H", "Accept-Encoding: gzip", "-o", file.path, "http://127.0.0.1:\(server.port)/app/basemap.geojson"])
        #expect(gz.out.lowercased().contains("content-encoding: gzip"), "\(gz.out)")
        let gunzip = try runProgram("/bin/gunzip", ["-c", file.path])
        #expect(Data(gunzip.out.utf8) == plain)
        #expect(try Data(contentsOf: file).count < plain.count / 3)
        let raw = try runProgram("/usr/bin/curl", ["-s", "http://127.0.0.1:\(server.port)/app/basemap.geojson"])
        #expect(Data(raw.out.utf8) == plain)
    }

    /// `--basemap-tiles` replaces the offline basemap: the config names the tiles and their
    /// credit, the page may load images from their origin and nowhere else new; refused without
    /// a credit, without {z}/{x}/{y}, or beside --basemap (exit 2, naming the option).
    @Test func operatorTilesReplaceTheOfflineBasemap() throws {
        let template = "https://tiles.example.org/osm/{z}/{x}/{y}.png"
        for (args, says) in [
            (["--basemap-tiles", template], "--basemap-tiles needs --basemap-attribution"),
            (["--basemap-tiles", "https://tiles.example.org/osm.png", "--basemap-attribution", "x"], "with {z}, {x} and {y}"),
            (["--basemap-tiles", "https://a.example/{z}/{x}/{y}.png; script-src *", "--basemap-attribution", "x"], "--basemap-tiles"),
            (["--basemap-attribution", "x"], "--basemap-attribution goes with --basemap-tiles"),
            (["--basemap", "/nonexistent/basemap.geojson"], "no such readable file"),
        ] {
            let r = try f.geospend(["serve", "--db", f.db, "--port", "0"] + args)
            #expect(r.status == 2 && r.err.contains(says), "\(args): \(r.status) \(r.err)")
        }
        let server = try LiveServerTests.Server(
            db: f.db, in: f.dir, arguments: ["--basemap-tiles", template, "--basemap-attribution", "© OpenStreetMap contributors"])
        defer { _ = server.stop() }
        let config = try runProgram("/usr/bin/curl", ["-s", "http://127.0.0.1:\(server.port)/app/config.json"]).out
        let basemap = try #require((try JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any])?["basemap"] as? [String: String])
        #expect(basemap == ["type": "tiles", "url": template, "attribution": "© OpenStreetMap contributors"])
        let head = try runProgram("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "http://127.0.0.1:\(server.port)/"]).out
        #expect(head.contains("img-src 'self' data: https://tiles.example.org; connect-src 'self';"), "\(head)")
        let gone = try runProgram("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "http://127.0.0.1:\(server.port)/app/basemap.geojson"]).out
        #expect(gone.hasSuffix("\n404") && gone.contains("--basemap-tiles"), "\(gone)")
    }
}
