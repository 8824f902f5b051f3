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

    /// alice's receipt photo that waits for review: its printed total is 1.00 more than its items
    /// (Tests/Fixtures/receipts/README.md), kept with the photo. Returns `receipts show`'s JSON.
    func waitingReceipt() throws -> [String: Any] {
        let photo = ServiceFixture.repo.appendingPathComponent("Tests/Fixtures/receipts/tampered-phone-903-de.jpg").path
        let made = try f.cli(["receipts", "import", photo, "--user", ServiceFixture.alice, "--store", "288130404", "--keep-image", "--format", "json"], db: f.db)
        let id = try #require((try JSONSerialization.jsonObject(with: Data(made.utf8)) as? [String: Any])?["receipt_id"] as? String, "\(made)")
        return try receipt(id)
    }

    func receipt(_ id: String) throws -> [String: Any] {
        let shown = try f.cli(["receipts", "show", id, "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
        return try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
    }

    /// Minor units of a decimal string ("65.54"), computed here apart from the app's own.
    static func cents(_ text: String) -> Int {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let whole = Int(parts[0].replacingOccurrences(of: "-", with: "")) ?? 0
        let fraction = parts.count > 1 ? Int(parts[1].padding(toLength: 2, withPad: "0", startingAt: 0).prefix(2)) ?? 0 : 0
        return (text.hasPrefix("-") ? -1 : 1) * (whole * 100 + fraction)
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

    /// The properties of the CLI's points layer for alice in the month.
    func pointFeatures() throws -> [[String: Any]] {
        let out = try f.cli(["export", "points", "--user", ServiceFixture.alice, "--from", Self.month + "-01", "--to", Self.month + "-31"], db: f.db)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        return try #require(doc["features"] as? [[String: Any]]).compactMap { $0["properties"] as? [String: Any] }
    }

    @Test(arguments: ["1280x900", "390x844"])
    func monthScreenShowsTheCLIsFiguresAndTheMap(size: String) throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let token = try #require(f.tokens["alice"])
        let waiting = try waitingReceipt()
        #expect(waiting["status"] as? String == "needs_review", "\(waiting)")
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

        // The review map: the first expense's candidate stores, one marker each, named.
        let first = try #require(ambiguous.first as? [String: Any])
        let candidates = try #require(first["candidates"] as? [[String: Any]]).compactMap { $0["store_id"] as? String }
        let reviewMap = try #require(seen["review_map"] as? [String: Any])
        #expect(reviewMap["expense"] as? String == first["id"] as? String, "\(reviewMap)")
        #expect(reviewMap["basemap"] as? Bool == true)
        let markers = try #require(reviewMap["markers"] as? [[String]])
        #expect(markers.map { $0[0] } == candidates, "\(markers) vs \(candidates)")
        #expect(markers.allSatisfy { !$0[1].isEmpty })

        // The receipt that waits: its photo drawn (from a blob: URL), its problems and lines as
        // `receipts show` has them.
        let receipts = try #require(seen["receipts"] as? [[String: Any]])
        let shownReceipt = try #require(receipts.first { $0["id"] as? String == waiting["id"] as? String }, "\(receipts)")
        let photo = try #require(shownReceipt["photo"] as? [String: Any], "no photo drawn")
        #expect(photo["src"] as? String == "blob:" && (photo["width"] as? Int ?? 0) > 100, "\(photo)")
        #expect(shownReceipt["problems"] as? [String] == waiting["problems"] as? [String])
        let items = try #require(waiting["items"] as? [[String: Any]])
        let lines = try #require(shownReceipt["lines"] as? [[Any]])
        #expect(lines.map { "\($0[0])=\($0[1])" } == items.map { "\($0["line"] ?? "")=\($0["price"] ?? "")" }, "\(lines)")

        // The map: one container, the basemap pane with every feature of the shipped file drawn.
        #expect(seen["map_containers"] as? Int == 1)
        let basemapFile = try Data(contentsOf: ServiceFixture.repo.appendingPathComponent("Data/helsinki-basemap.geojson"))
        let basemapFeatures = try #require((try JSONSerialization.jsonObject(with: basemapFile) as? [String: Any])?["features"] as? [Any]).count
        let basemap = try #require(seen["basemap"] as? [String: Int], "no [data-layer=basemap] in the map")
        #expect(basemapFeatures > 1000)
        #expect(basemap["features"] == basemapFeatures && basemap["canvases"] == 1, "\(basemap) of \(basemapFeatures)")
        // Drawn: a twentieth of the canvas or more painted (24 % at 1280x900), buildings' fill on
        // 1 % or more (11 %), and water's and green's fills seen (the month's view of central
        // Helsinki has all three; water was 417 of 2.4 million pixels at 1280x900).
        let pixels = basemap["pixels"] ?? 0
        #expect(pixels > 0 && (basemap["painted"] ?? 0) * 20 >= pixels && (basemap["building"] ?? 0) * 100 >= pixels, "\(basemap)")
        #expect((basemap["water"] ?? 0) > 0 && (basemap["green"] ?? 0) > 0, "\(basemap)")

        // The month's features: the CLI's layers for alice and the month, each drawn.
        let drawn = try #require(seen["drawn"] as? [String: Int])
        let points = try layerCount(["points"]), hexagons = try layerCount(["grid", "--cell", "250m"]), places = try layerCount(["places"])
        #expect(points > 0 && hexagons > 0 && places > 0)
        #expect(drawn["points"] == points && drawn["hexagons"] == hexagons && drawn["places"] == places, "\(drawn) vs \(points) \(hexagons) \(places)")
        // Device and inferred positions drawn apart, as many of each as the CLI's layer holds.
        let inferred = try pointFeatures().filter { ($0["position_source"] as? String ?? "device") != "device" }.count
        #expect(drawn["inferred"] == inferred && drawn["device"] == points - inferred, "\(drawn) vs \(inferred) inferred of \(points)")
        #expect(drawn["hexPaths"] == hexagons && drawn["placePaths"] == places, "\(drawn)")
        // A dot's popup: the expense of the CLI's layer at that time, its merchant, and whether
        // its position was inferred.
        let popup = try #require(seen["dot_popup"] as? [String: Any], "no dot to click")
        let popupText = try #require(popup["text"] as? String, "a click on a dot opened no popup")
        let sameTime = try pointFeatures().filter { popupText.contains($0["occurred_at"] as? String ?? "\u{0}") }
        #expect(!sameTime.isEmpty, "no expense of the layer at the popup's time: \(popupText)")
        #expect(sameTime.contains { f in
            let source = f["position_source"] as? String ?? "device"
            return popupText.contains(f["merchant"] as? String ?? "—") && (popup["inferred"] as? Bool) == (source != "device")
                && popupText.contains("position inferred (\(source))") == (source != "device")
        }, "\(popup) vs \(sameTime)")

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

    /// One click on a candidate store — its button, or its marker on the review map — confirms
    /// the expense: the CLI then shows it at that store, and the review queue is one shorter.
    @Test(arguments: ["--confirm", "--confirm-on-map"])
    func confirmingAReviewItemPlacesTheExpense(how: String) throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let seen = try browse(server, token: try #require(f.tokens["aliceWrite"]), size: "1280x900", extra: [how])
        let confirmed = try #require(seen["confirmed"] as? [String: String])
        let id = try #require(confirmed["expense"]), store = try #require(confirmed["store"])
        let shown = try f.cli(["expenses", "show", id, "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
        let expense = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        #expect(expense["store_id"] as? String == store, "\(shown)")
        let before = try #require(Int(seen["review_count"] as? String ?? ""))
        #expect(seen["review_count_after"] as? String == String(before - 1))
        #expect((seen["console"] as? [Any])?.isEmpty == true, "\(seen["console"] ?? "")")
    }

    /// A receipt that waits for review (its printed total 1.00 more than its lines) corrected in
    /// the browser: the total typed in place and saved makes it `ok`, as `receipts show` says,
    /// with the total typed: the sum of its lines, computed here.
    @Test func correctingAReceiptInPlace() throws {
        let waiting = try waitingReceipt()
        let id = try #require(waiting["id"] as? String)
        #expect(waiting["status"] as? String == "needs_review")
        let items = try #require(waiting["items"] as? [[String: Any]])
        let sum = items.reduce(0) { $0 + Self.cents($1["price"] as? String ?? "0") }
        let typed = "\(sum / 100).\(String(format: "%02d", sum % 100))"
        #expect(Self.cents(waiting["total"] as? String ?? "") != sum, "the fixture's total should not add up: \(waiting["total"] ?? "")")
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let seen = try browse(server, token: try #require(f.tokens["aliceWrite"]), size: "1280x900", extra: ["--receipt", id, "--receipt-total", typed])
        let after = try #require(seen["receipt_after"] as? [String: String])
        #expect(after["status"] == "ok" && after["message"]?.hasPrefix("Saved") == true, "\(after)")
        let shown = try receipt(id)
        #expect(shown["status"] as? String == "ok", "\(shown["problems"] ?? "")")
        #expect(shown["total"] as? String == typed)
        #expect(shown["expense_id"] as? String == id)
        #expect((seen["console"] as? [Any])?.isEmpty == true, "\(seen["console"] ?? "")")
    }

    /// The Add screen: an expense placed by the browser's geolocation (overridden through the
    /// DevTools protocol), one placed by a click on the map, a receipt photo uploaded, a statement
    /// refused with its line and reason and one imported with its counts — each checked through
    /// the CLI.
    @Test(arguments: ["1280x900", "390x844"])
    func addScreenStoresWhatItSays(size: String) throws {
        let bad = f.dir.appendingPathComponent("statement-bad.csv"), good = f.dir.appendingPathComponent("statement.csv")
        let header = "id,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"
        try (header + "st1,expense,3.20,EUR,2025-03-21T08:00:00+02:00,,Food,Statement Bakery,,,,,\nst2,expense,twelve,EUR,2025-03-21T09:00:00+02:00,,Food,Statement Kiosk,,,,,\n")
            .write(to: bad, atomically: true, encoding: .utf8)
        try (header + "st3,expense,3.20,EUR,2025-03-21T08:00:00+02:00,,Food,Statement Bakery,,,,,\nst4,expense,8.10,EUR,2025-03-22T09:00:00+02:00,,Food,Statement Kiosk,,,,,\n")
            .write(to: good, atomically: true, encoding: .utf8)
        let photo = ServiceFixture.repo.appendingPathComponent("Tests/Fixtures/receipts/phone-900-de.jpg").path
        // The photo's OCR passed the default 30 s at load 13 (ReceiptRecordRouteTests, 2 Dec 2026).
        let server = try LiveServerTests.Server(db: f.db, in: f.dir, arguments: ["--time-limit", "600"])
        defer { _ = server.stop() }
        let seen = try browse(server, token: try #require(f.tokens["aliceWrite"]), size: size, extra: [
            "--add", "--axe", "--geolocation", "60.16862,24.94125", "--photo", photo, "--photo-store", "288130404",
            "--import-bad", bad.path, "--import-good", good.path,
        ])
        let add = try #require(seen["add"] as? [String: Any])
        func shown(_ id: String) throws -> [String: Any] {
            let out = try f.cli(["expenses", "show", id, "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
            return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        }
        // The device's position, as the browser reported it.
        let device = try #require(add["device"] as? [String: Any])
        let first = try shown(try #require(device["id"] as? String, "\(device)"))
        #expect(first["amount"] as? String == "12.34" && first["currency"] as? String == "EUR" && first["category"] as? String == "Food", "\(first)")
        #expect(first["notes"] as? String == "webapp e2e: device position")
        #expect((first["occurred_at"] as? String)?.hasPrefix("2025-03-20T09:15") == true, "\(first["occurred_at"] ?? "")")
        #expect(abs((first["lat"] as? Double ?? 0) - 60.16862) < 1e-6 && abs((first["lon"] as? Double ?? 0) - 24.94125) < 1e-6, "\(first)")
        // A click on the map: the position the page showed, somewhere else.
        let clicked = try #require(add["map"] as? [String: Any])
        let position = try #require(clicked["position"] as? [Double])
        let second = try shown(try #require(clicked["id"] as? String, "\(clicked)"))
        #expect(second["amount"] as? String == "5.60")
        #expect(abs((second["lat"] as? Double ?? 0) - position[0]) < 1e-6 && abs((second["lon"] as? Double ?? 0) - position[1]) < 1e-6, "\(second) vs \(position)")
        #expect(abs(position[0] - 60.16862) > 1e-5 || abs(position[1] - 24.94125) > 1e-5, "the click set no new position")
        // The photo: a receipt, read and stored with its photo.
        let upload = try #require(add["receipt"] as? [String: Any])
        let id = try #require(upload["id"] as? String, "\(upload)")
        let receipt = try receipt(id)
        #expect(receipt["image_kept"] as? Bool == true && receipt["image_name"] as? String == "phone-900-de.jpg", "\(receipt)")
        #expect(receipt["status"] as? String == upload["status"] as? String && receipt["total"] as? String == "18.22", "\(receipt["problems"] ?? "")")
        #expect(upload["progress"] as? Int == 100 && upload["done"] as? Bool == true, "\(upload)")
        // The refused statement: its line and reason shown, nothing imported; the good one's counts.
        let refused = try #require(add["import_bad"] as? [String: Any])
        #expect(refused["outcome"] as? String == "refused" && (refused["said"] as? String ?? "").contains("nothing was imported"), "\(refused)")
        let errors = try #require(refused["errors"] as? [String])
        #expect(errors.count == 1 && errors[0].hasPrefix("statement-bad.csv, line 3") && errors[0].contains("amount"), "\(errors)")
        let imported = try #require(add["import_good"] as? [String: Any])
        #expect(imported["outcome"] as? String == "imported" && (imported["said"] as? String ?? "").contains("inserted 2"), "\(imported)")
        #expect(imported["progress"] as? Int == 100 && imported["done"] as? Bool == true)
        #expect(try shown("st4")["amount"] as? String == "8.10")
        let st2 = try f.geospend(["expenses", "show", "st2", "--user", ServiceFixture.alice, "--db", f.db])
        #expect(st2.status != 0, "the refused statement's good row was imported: \(st2.out)")
        #expect((add["axe"] as? [Any])?.isEmpty == true, "\(add["axe"] ?? "")")
        #expect((add["overflow"] as? Int ?? 1) <= 0)
        // The refused statement's 400 is the one console line (Chromium logs a failed request).
        let console = try #require(seen["console"] as? [[String: Any]])
        #expect(console.count == 1 && (console.first?["message"] as? String ?? "").contains("/api/v1/import/expenses?format=csv - Failed to load resource: the server responded with a status of 400"), "\(console)")
    }

    /// Shop: alice's list's items priced within the circle (5 km around its centre), the stores
    /// ranked as `geospend basket` ranks them for the same items, place and radius, each drawn;
    /// an item checked off in the browser at 1.19 a litre shows in `geospend lists show` as
    /// paid 2 × 1.19.
    @Test(arguments: ["1280x900", "390x844"])
    func shopRanksTheBasketAndChecksOffAnItem(size: String) throws {
        let imported = try f.geospend(["prices", "import", ServiceFixture.repo.appendingPathComponent("Data/examples/prices.csv").path, "--user", ServiceFixture.alice, "--db", f.db])
        try #require(imported.status == 0, "\(imported.err)")
        _ = try f.cli(["lists", "add", "--user", ServiceFixture.alice, "--name", "Weekly", "--budget", "20", "--currency", "EUR",
                       "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg"], db: f.db)
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let seen = try browse(server, token: try #require(f.tokens["aliceWrite"]), size: size,
                              extra: ["--shop", "--shop-radius", "5000", "--shop-price", "1.19", "--axe"])
        let shop = try #require(seen["shop"] as? [String: Any])
        #expect(shop["circle"] as? Int == 1)
        let centre = try #require(shop["centre"] as? String)
        let basket = try f.cli(["basket", "--user", ServiceFixture.alice, "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg",
                                "--near", centre, "--radius", "5000m", "--top", "8", "--format", "json"], db: f.db)
        let stores = try #require((try JSONSerialization.jsonObject(with: Data(basket.utf8)) as? [String: Any])?["stores"] as? [[String: Any]])
        let expected = stores.map { [($0["store"] as? [String: Any])?["id"] as? String ?? "", $0["total_price"] as? String ?? ""] }
        let ranked = try #require(shop["ranked"] as? [[String]])
        #expect(!expected.isEmpty)
        #expect(ranked.map { [$0[0], $0[1]] } == expected, "\(ranked) vs \(expected)")
        #expect(shop["markers"] as? [String] == expected.map { $0[0] })
        // Item names reach the service as written (a space is not a plus): each price is named so.
        #expect(ranked.allSatisfy { !$0[2].contains("+") } && ranked.first?[2].contains("Vollmilch 1,5% ") == true, "\(ranked)")
        for (line, store) in zip(ranked, stores) where !((store["unavailable_items"] as? [String]) ?? []).isEmpty {
            #expect(line[2].contains("lacks"), "\(line)")
        }
        let checked = try #require(shop["checked"] as? [String: String])
        #expect(checked["item"] == "Vollmilch 1,5%", "\(checked)")
        let shown = try f.cli(["lists", "show", "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
        #expect(shown.contains("\"paid\": \"2.38\""), "\(shown)")
        #expect(Self.cents("1.19") * 2 == Self.cents("2.38"))
        #expect((shop["axe"] as? [Any])?.isEmpty == true, "\(shop["axe"] ?? "")")
        #expect((shop["overflow"] as? Int ?? 1) <= 0, "\(shop["overflow"] ?? "")")
        #expect((seen["console"] as? [Any])?.isEmpty == true, "\(seen["console"] ?? "")")
    }

    /// Keyboard only (Tab, Enter, Space through ActionChains): from the signed-in first screen to
    /// the Review tab, a candidate confirmed, then the Shop tab; the focus visible at each stop.
    /// The confirmation is checked through the CLI.
    @Test(arguments: ["1280x900", "390x844"])
    func aWholeFlowByKeyboard(size: String) throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let seen = try browse(server, token: try #require(f.tokens["aliceWrite"]), size: size, extra: ["--keyboard"])
        let keyboard = try #require(seen["keyboard"] as? [String: Any])
        let stops = try #require(keyboard["stops"] as? [[String: Any]])
        #expect(stops.count == 3)
        for s in stops { #expect(s["focus_visible"] as? Bool == true, "\(s)") }
        let confirmed = try #require(keyboard["confirmed"] as? [String: String])
        let shown = try f.cli(["expenses", "show", try #require(confirmed["expense"]), "--user", ServiceFixture.alice, "--format", "json"], db: f.db)
        #expect((try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])?["store_id"] as? String == confirmed["store"])
        #expect(keyboard["shop_shown"] as? Bool == true)
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

    /// A `geospend` copied without its resource bundle serves on: `/`, `/app/*` and
    /// `/openapi.json` answer 404 problem+json naming the bundle (said once in the log), the API
    /// answers, the process keeps running. `GEOSPEND_RESOURCES` names an empty folder, as the
    /// checkout's build folder would otherwise be found; copied next to the binary, the bundle is
    /// found there first (a marker written into its copy of index.html shows).
    @Test func aBinaryWithoutItsResourceBundleAnswers404() throws {
        let lone = f.dir.appendingPathComponent("lone-bin")
        let empty = f.dir.appendingPathComponent("no-resources")
        try FileManager.default.createDirectory(at: lone, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let binary = lone.appendingPathComponent("geospend")
        try FileManager.default.copyItem(atPath: ServiceFixture.binary, toPath: binary.path)
        var environment = ServiceFixture.environment
        environment["GEOSPEND_RESOURCES"] = empty.path
        let server = try LiveServerTests.Server(db: f.db, in: f.dir, environment: environment, binary: binary.path)
        defer { _ = server.stop() }
        let url = "http://127.0.0.1:\(server.port)"
        for path in ["/", "/app/app.js", "/app/app.css", "/openapi.json", "/"] {
            let r = try runProgram("/usr/bin/curl", ["-s", "-D", "-", url + path])
            #expect(r.out.hasPrefix("HTTP/1.1 404"), "\(path): \(r.out.prefix(300))")
            #expect(r.out.lowercased().contains("content-type: application/problem+json"), "\(path)")
            #expect(r.out.contains("GeoSpend_GeoSpendService.resources") && r.out.contains("GEOSPEND_RESOURCES"), "\(path): \(r.out)")
        }
        let me = try runProgram("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(try #require(f.tokens["alice"]))", url + "/api/v1/users/me"])
        #expect(me.out.hasSuffix("\n200"), "\(me.out)")
        #expect(server.process.isRunning)
        #expect(server.log.components(separatedBy: "GeoSpend_GeoSpendService.resources is missing").count == 2, "\(server.log)")
        #expect(server.stop() == 0)

        // The bundle beside the binary: found there, before the build folder.
        let bundle = URL(fileURLWithPath: ServiceFixture.binary).deletingLastPathComponent().appendingPathComponent("GeoSpend_GeoSpendService.resources")
        let copy = lone.appendingPathComponent("GeoSpend_GeoSpendService.resources")
        try FileManager.default.copyItem(at: bundle, to: copy)
        let index = copy.appendingPathComponent("WebApp/index.html")
        try (try String(contentsOf: index, encoding: .utf8)).replacingOccurrences(of: "<title>GeoSpend</title>", with: "<title>GeoSpend beside the binary</title>")
            .write(to: index, atomically: true, encoding: .utf8)
        let beside = try LiveServerTests.Server(db: f.db, in: f.dir, binary: binary.path)
        defer { _ = beside.stop() }
        let page = try runProgram("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "http://127.0.0.1:\(beside.port)/"])
        #expect(page.out.hasSuffix("\n200") && page.out.contains("GeoSpend beside the binary"), "\(page.out.prefix(300))")
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
        #expect(head.contains("img-src 'self' data: blob: https://tiles.example.org; connect-src 'self';"), "\(head)")
        let gone = try runProgram("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "http://127.0.0.1:\(server.port)/app/basemap.geojson"]).out
        #expect(gone.hasSuffix("\n404") && gone.contains("--basemap-tiles"), "\(gone)")
    }
}
