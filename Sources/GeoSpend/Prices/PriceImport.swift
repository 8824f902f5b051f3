import Foundation

/// `geospend prices import FILE --user U`: price records from CSV or JSON Lines, in GeoSpend's
/// columns or in Open Prices' export columns, all or nothing (unless `skipInvalid`), errors as
/// `FILE:LINE: COLUMN: reason` like every import.
///
/// GeoSpend's columns: `product, brand, barcode, category, store_id, price, currency,
/// recorded_at, quantity, unit`; `store_id, price, currency, recorded_at` are required, and a
/// row names its product by `product`, `barcode` or both.
///
/// Open Prices (prices.openfoodfacts.org; the daily export's columns as data.gouv.fr's "Open
/// Prices" dataset page describes them, the API's `Price` object as Open Food Facts' Dart
/// client documents it): a header or first object with `location_osm_id` is read as Open
/// Prices. Read: `product_code` (barcode), `product_name`, `category_tag` (names a raw product
/// without barcode: `en:broccoli` → `broccoli`), `price`, `currency`, `date`, `price_per`
/// (`UNIT` or empty → per piece, `KILOGRAM` → per kg, `LITER` → per litre),
/// `location_osm_type` (`NODE`, `WAY`, `RELATION`) and `location_osm_id`, matched to the store
/// whose source id is `osm:node/…` (`geospend import stores` of OpenStreetMap data). Every
/// other column (`id`, `owner`, `proof_id`, …) is ignored.
///
/// Records are held in memory and written in one transaction: price files are receipts and
/// exports, thousands of rows, not millions.
public enum PriceImport {
    /// `source` (receipt, manual, import; default import) is what `users export` writes back.
    /// `receipt_id` too (the receipt a record came from, issue 42 §2): read and not used, since
    /// a receipt is not imported with its records; the export's lines stay a file this takes.
    public static let columns = [
        "product", "brand", "barcode", "category", "store_id", "price", "currency", "recorded_at", "quantity", "unit", "source",
        "receipt_id",
    ]
    public static let required = ["store_id", "price", "currency", "recorded_at"]
    static let openPricesRequired = ["location_osm_id", "location_osm_type", "price", "currency", "date"]

    /// What an import did.
    public struct Report: Sendable, Equatable {
        public var rows = ImportReport()
        /// Products new to this user: none of their price records named one before. Not "new to
        /// the catalogue", which would tell them what other users recorded.
        public var newProducts = 0
        public var openPrices = false
    }

    /// - Throws: `ImportError` (unreadable, bad header, or `.rejected` with every bad row:
    ///   nothing written).
    public static func importPrices(
        from path: String, format: ImportFormat? = nil, userID user: String, into store: some PriceStore,
        options: ImportOptions = ImportOptions()
    ) async throws -> Report {
        let userID: String
        do { userID = try checkIdentifier(user, column: "user") } catch {
            throw ValueError.invalidValue(user, reason: "is not a user id: it \(error.reason)")
        }
        guard !userID.isEmpty else { throw ValueError.invalidValue(user, reason: "is empty; give --user ID") }
        let name = (path as NSString).lastPathComponent
        let format = format ?? ImportFormat.guess(path: path) ?? .csv
        var parsed = Parsed()
        switch format {
        case .csv: try readCSV(path: path, name: name, into: &parsed)
        case .jsonl: try readJSONLines(path: path, name: name, into: &parsed)
        case .geojson, .gpx:
            throw ImportError.badFile(RowError(
                file: name, line: 1, column: "file", reason: "prices are read from CSV or JSON Lines, not \(format.rawValue); give --format csv or jsonl"))
        }
        var report = Report()
        report.openPrices = parsed.openPrices
        report.rows.rejected = parsed.errors.count
        if !parsed.errors.isEmpty && !options.skipInvalid {
            throw ImportError.rejected(errors: Array(parsed.errors.prefix(ImportOptions.maximumListedErrors)), badRows: parsed.errors.count)
        }
        var rows = parsed.rows
        let known = try await ProductLookup.productIDs(userID: userID, in: store)
        var outcomes = try await store.savePrices(rows.map(\.entry), userID: userID)
        let unknown = zip(rows, outcomes).filter { $0.1 == .unknownStore }.map { $0.0 }
        if !unknown.isEmpty {
            let errors = unknown.map { row in
                RowError(file: name, line: row.line, column: row.storeColumn, reason: unknownStoreReason(row.entry.store))
            }
            guard options.skipInvalid else {
                throw ImportError.rejected(
                    errors: Array(inLineOrder(parsed.errors + errors).prefix(ImportOptions.maximumListedErrors)),
                    badRows: parsed.errors.count + errors.count)
            }
            // Nothing was written: write the rest.
            parsed.errors = inLineOrder(parsed.errors + errors)
            report.rows.rejected = parsed.errors.count
            rows = zip(rows, outcomes).filter { $0.1 != .unknownStore }.map { $0.0 }
            outcomes = try await store.savePrices(rows.map(\.entry), userID: userID)
        }
        report.rows.errors = Array(parsed.errors.prefix(ImportOptions.maximumListedErrors))
        var added = Set<Int64>()
        for outcome in outcomes {
            switch outcome {
            case .inserted(let record, _):
                report.rows.inserted += 1
                if !known.contains(record.product.id) { added.insert(record.product.id) }
            case .unchanged: report.rows.unchanged += 1
            case .unknownStore: break
            }
        }
        report.newProducts = added.count
        return report
    }

    static func inLineOrder(_ errors: [RowError]) -> [RowError] {
        errors.sorted { (Int($0.location) ?? 0) < (Int($1.location) ?? 0) }
    }

    static func unknownStoreReason(_ store: PriceEntry.StoreReference) -> String {
        switch store {
        case .id(let id):
            return "no store with id \(ValueError.quote(id)); import the store first (geospend import stores) or correct the id (geospend nearest-stores lists ids)"
        case .openStreetMap(let type, let number):
            return "no store is OpenStreetMap \(type.lowercased()) \(number) (source id osm:\(type.lowercased())/\(number)); import the OpenStreetMap places first (geospend import stores FILE.geojson)"
        }
    }

    struct Row {
        let line: Int
        let entry: PriceEntry
        /// The column that named the store, for an unknown store's error.
        let storeColumn: String
    }

    struct Parsed {
        var rows: [Row] = []
        var errors: [RowError] = []
        var openPrices = false
    }

    static func readCSV(path: String, name: String, into parsed: inout Parsed) throws {
        var index: [String: Int] = [:]
        var openPrices = false
        _ = try RecordReaders.delimited(
            path: path, displayName: name,
            header: { fields, line in
                let names = fields.map { $0.trimmingSpaces() }
                openPrices = names.contains("location_osm_id")
                if openPrices {
                    for (i, n) in names.enumerated() where index[n] == nil { index[n] = i }
                    let missing = openPricesRequired.filter { index[$0] == nil }
                    guard missing.isEmpty else {
                        throw ImportError.badHeader(missing.map {
                            RowError(file: name, line: line, column: $0, reason: "required Open Prices column is missing from the header")
                        })
                    }
                } else {
                    let map = try HeaderMap(header: fields, known: columns, required: required, file: name, line: line)
                    for c in columns { if let i = map.index(of: c) { index[c] = i } }
                    if index["product"] == nil && index["barcode"] == nil {
                        throw ImportError.badFile(RowError(
                            file: name, line: line, column: "product", reason: "the header has neither product nor barcode; add a product column"))
                    }
                }
            },
            body: { result in
                switch result {
                case .failure(let e): parsed.errors.append(e)
                case .success(let (fields, line)):
                    let record = RawRecord(location: String(line)) { n in index[n].map { .text(fields[$0]) } }
                    parse(record, line: line, openPrices: openPrices, file: name, into: &parsed)
                }
            })
        parsed.openPrices = openPrices
    }

    static func readJSONLines(path: String, name: String, into parsed: inout Parsed) throws {
        // The first object's keys say which layout the file is in.
        let openPrices = try firstLine(of: path).map { $0.contains("\"location_osm_id\"") } ?? false
        parsed.openPrices = openPrices
        _ = try RecordReaders.jsonLines(path: path, displayName: name, known: openPrices ? nil : columns) { result in
            switch result {
            case .failure(let e): parsed.errors.append(e)
            case .success(let record):
                parse(record, line: Int(record.location) ?? 0, openPrices: openPrices, file: name, into: &parsed)
            }
        }
    }

    /// The first non-blank line's text (at most 1 MiB read), or nil for an empty file.
    static func firstLine(of path: String) throws -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImportError.unreadable(file: (path as NSString).lastPathComponent, reason: "cannot open the file")
        }
        defer { try? handle.close() }
        let head = handle.readData(ofLength: 1 << 20)
        return String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline)
            .first { !$0.allSatisfy(\.isWhitespace) }.map(String.init)
    }

    static func parse(_ r: RawRecord, line: Int, openPrices: Bool, file: String, into parsed: inout Parsed) {
        do {
            let row = openPrices ? try openPricesRow(r, line: line) : try geoSpendRow(r, line: line)
            parsed.rows.append(row)
        } catch {
            parsed.errors.append(RowError(file: file, line: line, column: error.column, reason: error.reason))
        }
    }

    static func geoSpendRow(_ r: RawRecord, line: Int) throws(FieldError) -> Row {
        let barcode = try barcode(r, "barcode")
        let productText = try r.freeText("product")
        guard let name = productText ?? barcode?.digits else {
            throw FieldError(column: "product", reason: "is empty and so is barcode; name the product or give its barcode")
        }
        let currency = try currency(r, "currency")
        let storeID = try checkIdentifier(try r.required("store_id"), column: "store_id")
        let quantity: Double
        if let q = try r.text("quantity") {
            quantity = try positiveNumber(q, column: "quantity")
        } else {
            quantity = 1
        }
        var unit = PriceUnit.pcs
        if let u = try r.text("unit") {
            do { unit = try PriceUnit(parsing: u) } catch { throw FieldError(column: "unit", reason: error.description) }
        }
        var source = PriceSource.import
        if let s = try r.text("source") {
            guard let known = PriceSource(rawValue: s) else {
                throw FieldError(column: "source", reason: "\(ValueError.quote(s)) is not receipt, manual or import")
            }
            source = known
        }
        let entry = PriceEntry(
            productName: name, brand: try r.freeText("brand"), barcode: barcode, category: try r.freeText("category"),
            store: .id(storeID), price: try money(r, "price", currency), quantity: quantity, unit: unit,
            recordedAt: try timestamp(r, "recorded_at"), source: source)
        return Row(line: line, entry: entry, storeColumn: "store_id")
    }

    static func openPricesRow(_ r: RawRecord, line: Int) throws(FieldError) -> Row {
        let barcode = try barcode(r, "product_code")
        let rawName = try r.freeText("category_tag").map { tag in
            // Open Food Facts taxonomy ids are `<language>:<name>`, words joined by `-`.
            let name = tag.split(separator: ":", maxSplits: 1).last.map(String.init) ?? tag
            return name.replacingOccurrences(of: "-", with: " ")
        }
        guard let name = try r.freeText("product_name") ?? rawName ?? barcode?.digits else {
            throw FieldError(column: "product_code", reason: "is empty and so are product_name and category_tag; the row names no product")
        }
        let currency = try currency(r, "currency")
        let type = try r.required("location_osm_type")
        guard ["node", "way", "relation"].contains(type.lowercased()) else {
            throw FieldError(column: "location_osm_type", reason: "\(ValueError.quote(type)) is not NODE, WAY or RELATION")
        }
        let idText = try r.required("location_osm_id")
        guard let number = Int64(idText), number > 0 else {
            throw FieldError(column: "location_osm_id", reason: "\(ValueError.quote(idText)) is not an OpenStreetMap id (a positive whole number)")
        }
        var unit = PriceUnit.pcs
        switch try r.text("price_per")?.uppercased() {
        case nil, "UNIT": unit = .pcs
        case "KILOGRAM": unit = .kg
        case "LITER", "LITRE": unit = .l
        case let other?:
            throw FieldError(column: "price_per", reason: "\(ValueError.quote(other)) is not UNIT, KILOGRAM or LITER")
        }
        let entry = PriceEntry(
            productName: name, barcode: barcode, store: .openStreetMap(type: type.lowercased(), number: number),
            price: try money(r, "price", currency), quantity: 1, unit: unit, recordedAt: try timestamp(r, "date"), source: .import)
        return Row(line: line, entry: entry, storeColumn: "location_osm_id")
    }

    static func barcode(_ r: RawRecord, _ column: String) throws(FieldError) -> Barcode? {
        guard let text = try r.text(column) else { return nil }
        do { return try Barcode(parsing: text) } catch { throw FieldError(column: column, reason: error.description) }
    }

    static func currency(_ r: RawRecord, _ column: String) throws(FieldError) -> Currency {
        let text = try r.required(column)
        do { return try Currency(code: text) } catch { throw FieldError(column: column, reason: error.description) }
    }

    static func money(_ r: RawRecord, _ column: String, _ currency: Currency) throws(FieldError) -> Money {
        guard let text = try r.text(column) else { throw FieldError(column: column, reason: "is empty; a price is required") }
        do { return try Money(parsing: text, currency: currency) } catch { throw FieldError(column: column, reason: error.description) }
    }

    static func timestamp(_ r: RawRecord, _ column: String) throws(FieldError) -> Timestamp {
        let text = try r.required(column)
        do { return try Timestamp(parsing: text) } catch { throw FieldError(column: column, reason: error.description) }
    }

    static func positiveNumber(_ text: String, column: String) throws(FieldError) -> Double {
        let value: Double
        do { value = try parseStrictDouble(text.replacingOccurrences(of: ",", with: ".")) } catch {
            throw FieldError(column: column, reason: error.description)
        }
        guard value > 0 else { throw FieldError(column: column, reason: "\(ValueError.quote(text)) is not above 0; a quantity is how much the price is for") }
        return value
    }
}
