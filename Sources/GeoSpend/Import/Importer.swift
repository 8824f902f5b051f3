/// What an import did.
public struct ImportReport: Sendable, Equatable {
    public var inserted = 0
    public var unchanged = 0
    /// Rows refused (listed in `errors` up to `ImportOptions.maximumListedErrors`).
    public var rejected = 0
    public var errors: [RowError] = []
    public var bytesRead: Int64 = 0
    public init() {}
}

public struct ImportOptions: Sendable {
    /// Write the good rows and report the bad ones, instead of writing nothing.
    public var skipInvalid: Bool
    /// Called every 10,000 rows with the number of rows read so far (progress on a terminal).
    public var progress: (@Sendable (Int) -> Void)?
    public static let maximumListedErrors = 100

    public init(skipInvalid: Bool = false, progress: (@Sendable (Int) -> Void)? = nil) {
        self.skipInvalid = skipInvalid
        self.progress = progress
    }
}

/// File formats the importer reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case csv, jsonl, geojson, gpx

    /// Guesses from the extension: `.csv`, `.jsonl`/`.ndjson`, `.geojson`/`.json`, `.gpx`.
    public static func guess(path: String) -> ImportFormat? {
        let lower = path.lowercased()
        if lower.hasSuffix(".csv") { return .csv }
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonl }
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return .geojson }
        if lower.hasSuffix(".gpx") { return .gpx }
        return nil
    }
}

/// Reads expense and store files, validates every row, and writes them through an
/// `ExpenseStore` in one transaction: all rows or none (unless `skipInvalid`).
///
/// ```swift
/// let report = try Importer.importExpenses(from: "Data/sample-expenses.csv", into: store)
/// print(report.inserted, report.unchanged)
/// ```
public enum Importer {
    /// - Throws: `ImportError` (unreadable file, bad header, or `.rejected` with every bad row).
    public static func importExpenses(
        from path: String, format: ImportFormat? = nil, into store: some ExpenseStore,
        options: ImportOptions = ImportOptions()
    ) throws -> ImportReport {
        let format = format ?? ImportFormat.guess(path: path) ?? .csv
        guard format != .geojson && format != .gpx else {
            throw ImportError.unreadable(file: path, reason: "expenses are imported from CSV or JSON Lines, not \(format == .gpx ? "GPX" : "GeoJSON")")
        }
        // Stage 1, on a second thread: read and validate rows, assign ids, hash the content.
        let pipeline = ProducerPipeline<ParsedRow<Expense>>()
        pipeline.start { emit in
            var seenIDs = Set<String>()
            var identicalContent: [Int64: Int] = [:]
            func handle(_ raw: Result<RawRecord, RowError>) throws {
                let r: RawRecord
                switch raw {
                case .failure(let e): return try emit(.failure(e))
                case .success(let v): r = v
                }
                var expense: Expense
                do { expense = try ExpenseRecord.parse(r) } catch {
                    return try emit(.failure(RowError(file: path, location: r.location, column: error.column, reason: error.reason)))
                }
                if expense.id.isEmpty {
                    // No id given: derive a stable one from the content, numbering identical rows
                    // in file order so two equal coffees stay two expenses and a re-import matches.
                    let hash = expense.contentHash
                    let ordinal = identicalContent[hash, default: 0]
                    identicalContent[hash] = ordinal + 1
                    expense.id = "h" + String(UInt64(bitPattern: hash), radix: 16) + (ordinal > 0 ? "-\(ordinal)" : "")
                } else if !seenIDs.insert(expense.id).inserted {
                    return try emit(.failure(duplicateID(expense.id, file: path, location: r.location)))
                }
                try emit(.row(expense, contentHash: expense.contentHash, location: r.location))  // the id is hashed too
            }
            switch format {
            case .jsonl:
                return try RecordReaders.jsonLines(path: path, displayName: path, known: ExpenseRecord.columns, body: handle)
            default:
                return try RecordReaders.csv(
                    path: path, displayName: path, known: ExpenseRecord.columns, required: ExpenseRecord.required,
                    body: handle)
            }
        }
        return try write(pipeline, from: path, into: store, options: options) { try $0.insert($1, contentHash: $2) }
    }

    /// Imports stores from a GeoJSON FeatureCollection (points, polygons), GPX waypoints or a CSV.
    /// - Throws: `ImportError`.
    public static func importStores(
        from path: String, format: ImportFormat? = nil, into store: some ExpenseStore,
        options: ImportOptions = ImportOptions()
    ) throws -> ImportReport {
        let format = format ?? ImportFormat.guess(path: path) ?? .csv
        guard format != .jsonl else {
            throw ImportError.unreadable(file: path, reason: "stores are imported from GeoJSON, GPX or CSV, not JSON Lines")
        }
        // Stage 1, on a second thread: read and validate stores, hash their content.
        let pipeline = ProducerPipeline<ParsedRow<Store>>()
        pipeline.start { emit in
            var seenIDs = Set<String>()
            func handle(_ s: Store, _ location: String) throws {
                guard seenIDs.insert(s.id).inserted else { return try emit(.failure(duplicateID(s.id, file: path, location: location))) }
                try emit(.row(s, contentHash: s.contentHash, location: location))
            }
            func found(_ result: Result<(store: Store, location: String), RowError>) throws {
                switch result {
                case .failure(let e): try emit(.failure(e))
                case .success(let found): try handle(found.store, found.location)
                }
            }
            switch format {
            case .geojson: return try RecordReaders.geoJSONStores(path: path, displayName: path, body: found)
            case .gpx: return try RecordReaders.gpxStores(path: path, displayName: path, body: found)
            default:
                return try RecordReaders.csv(
                    path: path, displayName: path, known: StoreRecord.columns, required: StoreRecord.required
                ) { raw in
                    switch raw {
                    case .failure(let e): try emit(.failure(e))
                    case .success(let r):
                        do { try handle(try StoreRecord.parse(r), r.location) } catch let e as FieldError {
                            try emit(.failure(RowError(file: path, location: r.location, column: e.column, reason: e.reason)))
                        }
                    }
                }
            }
        }
        return try write(pipeline, from: path, into: store, options: options) { try $0.insert($1, contentHash: $2) }
    }

    /// A validated record with its content hash and where it came from, or a rejected row.
    private enum ParsedRow<Record: Sendable>: Sendable {
        case row(Record, contentHash: Int64, location: String)
        case failure(RowError)
    }

    private static func duplicateID(_ id: String, file: String, location: String) -> RowError {
        RowError(file: file, location: location, column: "id", reason: "\(ValueError.quote(id)) appears earlier in this file; ids must be unique")
    }

    /// Stage 2, on the calling thread: writes what the parsing thread produced in one
    /// transaction, turning a writer's `RowRejection` into a row error at the row's location.
    private static func write<Record>(
        _ pipeline: ProducerPipeline<ParsedRow<Record>>, from path: String, into store: some ExpenseStore, options: ImportOptions,
        insert: @escaping (any BulkWriter, Record, Int64) throws -> InsertOutcome
    ) throws -> ImportReport {
        do {
            return try run(store: store, options: options) { writer, record in
                while let batch = pipeline.next() {
                    for item in batch {
                        switch item {
                        case .failure(let e): try record(.failure(e))
                        case .row(let row, let hash, let location):
                            do { try record(.success(try insert(writer, row, hash))) } catch let e as RowRejection {
                                try record(.failure(RowError(file: path, location: location, column: e.column, reason: e.reason)))
                            }
                        }
                    }
                }
                return try pipeline.finish()
            }
        } catch {
            pipeline.cancel()
            throw error
        }
    }

    /// Reads the stores of a GeoJSON, GPX or CSV file without a database (for the generator).
    /// - Throws: `ImportError` at the first bad record.
    public static func readStores(from path: String) throws -> [Store] {
        var stores: [Store] = []
        func found(_ result: Result<(store: Store, location: String), RowError>) throws {
            switch result {
            case .failure(let e): throw ImportError.badFile(e)
            case .success(let found): stores.append(found.store)
            }
        }
        switch ImportFormat.guess(path: path) {
        case .geojson: _ = try RecordReaders.geoJSONStores(path: path, displayName: path, body: found)
        case .gpx: _ = try RecordReaders.gpxStores(path: path, displayName: path, body: found)
        default:
            _ = try RecordReaders.csv(path: path, displayName: path, known: StoreRecord.columns, required: StoreRecord.required) {
                raw in
                switch raw {
                case .failure(let e): throw ImportError.badFile(e)
                case .success(let r):
                    do { stores.append(try StoreRecord.parse(r)) } catch let e as FieldError {
                        throw ImportError.badFile(RowError(file: path, location: r.location, column: e.column, reason: e.reason))
                    }
                }
            }
        }
        return stores
    }

    /// The shared skeleton: one transaction, count outcomes, roll back when any row was bad
    /// (unless skipping).
    private static func run(
        store: some ExpenseStore, options: ImportOptions,
        _ read: (any BulkWriter, (Result<InsertOutcome, RowError>) throws -> Void) throws -> Int64
    ) throws -> ImportReport {
        var report = ImportReport()
        try store.write { writer in
            report.bytesRead = try read(writer) { outcome in
                switch outcome {
                case .success(.inserted): report.inserted += 1
                case .success(.unchanged): report.unchanged += 1
                case .failure(let e):
                    report.rejected += 1
                    if report.errors.count < ImportOptions.maximumListedErrors { report.errors.append(e) }
                }
                let rows = report.inserted + report.unchanged + report.rejected
                if rows % 10_000 == 0 { options.progress?(rows) }
            }
            if report.rejected > 0 && !options.skipInvalid {
                throw ImportError.rejected(errors: report.errors, badRows: report.rejected)
            }
        }
        return report
    }
}
