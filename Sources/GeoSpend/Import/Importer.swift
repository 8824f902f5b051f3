/// What an import did.
public struct ImportReport: Sendable, Equatable {
    public var inserted = 0
    public var unchanged = 0
    /// Stored ids rewritten with the file's content (`ImportOptions.updatesChanged`), the
    /// first `ImportOptions.maximumListedErrors` listed in `updatedIDs`.
    public var updated = 0
    public var updatedIDs: [String] = []
    /// Rows not written as the same transaction is stored under another id (unless
    /// `ImportOptions.allowsDuplicates`), the first ones listed in `duplicateNotes`.
    public var duplicates = 0
    public var duplicateNotes: [DuplicateNote] = []
    /// Rows refused (listed in `errors` up to `ImportOptions.maximumListedErrors`).
    public var rejected = 0
    /// Rows a preset leaves out on purpose (balance corrections), neither written nor errors.
    public var skipped = 0
    public var errors: [RowError] = []
    public var bytesRead: Int64 = 0
    public init() {}
}

/// A row left out as a duplicate: where it is in the file, its id, and the stored expense it is.
public struct DuplicateNote: Sendable, Equatable {
    public let location: String
    public let id: String
    public let storedID: String
}

public struct ImportOptions: Sendable {
    /// Write the good rows and report the bad ones, instead of writing nothing.
    public var skipInvalid: Bool
    /// Rewrite stored expenses whose id comes again with other content (`--update`), instead
    /// of refusing them.
    public var updatesChanged: Bool
    /// Write an expense even when the same transaction is stored under another id
    /// (`--allow-duplicates`; `DuplicateCheck` says what is the same).
    public var allowsDuplicates: Bool
    /// Called every 10,000 rows with the number of rows read so far (progress on a terminal).
    public var progress: (@Sendable (Int) -> Void)?
    /// Bad rows listed; without `skipInvalid` reading also stops at this many.
    public static let maximumListedErrors = 20

    public init(
        skipInvalid: Bool = false, updatesChanged: Bool = false, allowsDuplicates: Bool = false, progress: (@Sendable (Int) -> Void)? = nil
    ) {
        self.skipInvalid = skipInvalid
        self.updatesChanged = updatesChanged
        self.allowsDuplicates = allowsDuplicates
        self.progress = progress
    }

    /// The writer's policy for one import's expenses (a fresh `DuplicateCheck` per import).
    func insertPolicy() -> InsertPolicy {
        InsertPolicy(updatesChanged: updatesChanged, duplicates: allowsDuplicates ? nil : DuplicateCheck())
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
/// `ExpenseStore` in one write scope, in batches: all rows or none (unless `skipInvalid`).
///
/// ```swift
/// let report = try await Importer.importExpenses(from: "Data/sample-expenses.csv", into: store)
/// print(report.inserted, report.unchanged)
/// ```
public enum Importer {
    /// - Throws: `ImportError` (unreadable file, bad header, or `.rejected` with the bad rows).
    public static func importExpenses(
        from path: String, format: ImportFormat? = nil, source: ExpenseSource = ExpenseSource(), into store: some ExpenseStore,
        options: ImportOptions = ImportOptions()
    ) async throws -> ImportReport {
        try await parsingAhead(path: path, options: options, into: store, insertions: { ExpenseInsertions(writer: $0, policy: options.insertPolicy()) }) {
            emit in try parseExpenses(from: path, format: format, source: source, emit)
        }
    }

    /// `importExpenses` inside a write scope (it throws, and so rolls the scope back, unless
    /// every row was good or `skipInvalid`).
    public static func importExpenses(
        from path: String, format: ImportFormat? = nil, source: ExpenseSource = ExpenseSource(), options: ImportOptions = ImportOptions(),
        writer: any ExpenseWriter
    ) throws -> ImportReport {
        try run(path: path, options: options, insertions: ExpenseInsertions(writer: writer, policy: options.insertPolicy())) { emit in
            try inBatches({ try parseExpenses(from: path, format: format, source: source, $0) }, emit)
        }
    }

    /// Reads an expense file, handing each row (parsed and hashed, or its error) to `emit`.
    /// - Returns: the bytes read.
    private static func parseExpenses(
        from path: String, format: ImportFormat?, source: ExpenseSource, _ emit: (ParsedRow<Expense>) throws -> Void
    ) throws -> Int64 {
        try readExpenses(from: path, format: format, source: source) { result in
            switch result {
            case .failure(let e): try emit(.failure(e))
            case .success(nil): try emit(.skipped)
            case .success(let (expense, location)?):
                try emit(.row(HashedRow(expense, contentHash: expense.contentHash), location: location))  // the id is hashed too
            }
        }.bytesRead
    }

    /// Reads a file as `importExpenses` would and writes nothing, not even a database: how
    /// its columns were understood, the first `rowsShown` rows as they would be stored, and
    /// the count of good and bad rows (every row is read; the first bad ones are listed).
    /// - Throws: `ImportError` for an unreadable file or a bad header.
    public static func previewExpenses(
        from path: String, format: ImportFormat? = nil, source: ExpenseSource = ExpenseSource(), rowsShown: Int = 5
    ) throws -> ImportPreview {
        var preview = ImportPreview()
        let read = try readExpenses(from: path, format: format, source: source) { result in
            switch result {
            case .failure(let e):
                preview.bad += 1
                if preview.errors.count < ImportOptions.maximumListedErrors { preview.errors.append(e) }
            case .success(nil): preview.skipped += 1
            case .success(let (expense, _)?):
                preview.good += 1
                if preview.rows.count < rowsShown { preview.rows.append(expense) }
            }
        }
        preview.columns = read.columns
        preview.conversions = source.describedConversions(format: read.format, delimiter: read.delimiter)
        return preview
    }

    /// The expenses of a file in order, each with its location, nil for a row a preset
    /// leaves out, or a row error: ids given or derived (content and the ordinal among
    /// identical rows), duplicates refused.
    private static func readExpenses(
        from path: String, format: ImportFormat?, source: ExpenseSource,
        _ body: (Result<(Expense, String)?, RowError>) throws -> Void
    ) throws -> (bytesRead: Int64, columns: [ColumnUse], format: String, delimiter: UInt8?) {
        // Ids are unique per user (file v17): two users' rows may share one.
        var seenIDs = Set<[String]>()
        var identicalContent: [Int64: Int] = [:]
        func handle(_ r: RawRecord, column: (String) -> String) throws {
            var expense: Expense
            do { expense = try ExpenseRecord.parse(r) } catch {
                return try body(.failure(RowError(file: path, location: r.location, column: column(error.column), reason: error.reason)))
            }
            if expense.id.isEmpty {
                // No id given: derive a stable one from the content, numbering identical rows
                // in file order so two equal coffees stay two expenses and a re-import matches.
                let hash = expense.contentHash
                let ordinal = identicalContent[hash, default: 0]
                identicalContent[hash] = ordinal + 1
                expense.id = "h" + String(UInt64(bitPattern: hash), radix: 16) + (ordinal > 0 ? "-\(ordinal)" : "")
            } else if !seenIDs.insert([Identity.normalized(expense.userID), Identity.normalized(expense.id)]).inserted {
                return try body(.failure(duplicateID(expense.id, file: path, location: r.location)))
            }
            try body(.success((expense, r.location)))
        }
        if let statement = source.preset?.statementFormat {
            // Bank statements: canonical records without a user; the options give user and
            // currency, and the statement's own transaction id is made unique per user.
            let conversions = source.conversions
            let bytes = try StatementReaders.read(
                statement, path: path, displayName: path,
                options: StatementOptions(dateFormat: source.dateFormatText, currency: conversions.currency.flatMap { try? Currency(code: $0) })
            ) { raw in
                switch raw {
                case .failure(let e): try body(.failure(e))
                case .success(let r):
                    let prefix = "\(conversions.user ?? "")/\(statement.idPrefix)/"
                    try handle(RawRecord(location: r.location) { key in
                        switch key {
                        case "user": return conversions.user.map { .text($0) }
                        case "currency":
                            if case .text(let c)? = r.value(key), !c.isEmpty { return .text(c) }
                            return conversions.currency.map { .text($0) }
                        case "id":
                            if case .text(let id)? = r.value(key), !id.isEmpty { return .text(prefix + id) }
                            return r.value(key)
                        default: return r.value(key)
                        }
                    }, column: { $0 })
                }
            }
            return (bytes, [], statement.rawValue, nil)
        }
        let format = format ?? ImportFormat.guess(path: path) ?? .csv
        if source.preset == .mono, format == .jsonl || format == .geojson {
            // MONO's JSON (`MonoPreset.readJSON`): its objects read as the CSV's rows are.
            let preset = MonoPreset()
            let conversions = source.conversions
            let bytes = try MonoPreset.readJSON(path: path) { row in
                switch row {
                case .failure(let e): try body(.failure(e))
                case .success(let r):
                    let records: [[String: String]]
                    do { records = try preset.records(r, conversions) } catch let error as FieldError {
                        return try body(.failure(RowError(file: path, location: r.location, column: error.column, reason: error.reason)))
                    }
                    if records.isEmpty { return try body(.success(nil)) }
                    for canonical in records {
                        try handle(RawRecord(location: r.location) { canonical[$0].map { .text($0) } }, column: { preset.fieldColumns[$0] ?? $0 })
                    }
                }
            }
            return (bytes, [], "MONO JSON", nil)
        }
        switch format {
        case .geojson, .gpx:
            if source.preset == nil, let known = ImportPreset.recognised(leadingLinesOf: path) {
                throw ImportError.badFile(ImportPreset.hint(known, file: path))
            }
            throw ImportError.unreadable(
                file: path, reason: "expenses are imported from CSV or JSON Lines, not \(format == .gpx ? "GPX" : "GeoJSON")")
        case .jsonl:
            guard source.isPlain else {
                throw ImportError.unreadable(file: path, reason: "--preset, --map and the value options read delimited files, not JSON Lines")
            }
            let bytes = try RecordReaders.jsonLines(path: path, displayName: path, known: ExpenseRecord.fields) { raw in
                switch raw {
                case .failure(let e): try body(.failure(e))
                case .success(let r): try handle(r, column: { $0 })
                }
            }
            return (bytes, [], "JSON Lines", nil)
        case .csv:
            if source.preset == nil, source.mapping.isEmpty,
                let known = ImportPreset.recognised(path: path) ?? ImportPreset.recognised(leadingLinesOf: path)
            {
                throw ImportError.badFile(ImportPreset.hint(known, file: path))
            }
            let preset = source.preset?.delimited
            let mapping = ExpenseMapping(
                layout: preset.map { .preset($0) } ?? (source.mapping.isEmpty ? .canonical : .mapped(source.mapping)),
                conversions: source.conversions, filters: source.filters)
            let delimiter = source.delimiter ?? preset?.defaultDelimiter(path: path) ?? UInt8(ascii: ",")
            var resolved: ExpenseMapping.Resolved?
            var index: [String: Int] = [:]  // the file's columns by name, first of equal names
            func header(_ fields: [String], _ line: Int) throws {
                if line > 1, source.skipLines == nil, preset == nil, !source.mapping.isEmpty {
                    source.notice?("\(path): line \(line) taken as the header (lines 1–\(line - 1) skipped; --skip-lines N to choose)")
                }
                resolved = try mapping.resolve(header: fields, file: path, line: line, delimiter: delimiter)
                for (i, name) in resolved!.uses.map(\.column).enumerated() where index[name] == nil { index[name] = i }
            }
            func row(_ row: Result<(fields: [String], line: Int), RowError>) throws {
                let mapping = resolved!
                let fields: [String], line: Int
                switch row {
                case .failure(let e): return try body(.failure(e))
                case .success(let r): (fields, line) = r
                }
                if mapping.direct {
                    return try handle(RawRecord(location: String(line)) { column in index[column].map { .text(fields[$0]) } }, column: { $0 })
                }
                let source = SourceRow(location: String(line)) { column in index[column].map { fields[$0] } }
                let records: [[String: String]]
                do { records = try mapping.records(source) } catch {
                    return try body(.failure(RowError(file: path, line: line, column: RowError.columnName(error.column), reason: error.reason)))
                }
                if records.isEmpty { return try body(.success(nil)) }
                for canonical in records {
                    try handle(RawRecord(location: String(line)) { canonical[$0].map { .text($0) } }, column: mapping.column)
                }
            }
            var encoding = source.encoding
            if encoding == .utf8, let legacy = preset?.legacyEncoding, !TextEncoding.isUTF8(path: path) { encoding = legacy }
            let search = HeaderSearches.expenses(preset: preset, mapping: mapping, skipLines: source.skipLines)
            let bytes = try RecordReaders.delimited(
                path: path, displayName: path, delimiter: delimiter, encoding: encoding, headerSearch: search, suggestsDelimiterOption: true,
                header: header, body: row)
            return (bytes, resolved?.uses ?? [], preset?.name ?? (source.mapping.isEmpty ? "CSV" : "mapped CSV"), delimiter)
        }
    }

    /// Imports stores from a GeoJSON FeatureCollection (points, polygons), GPX waypoints or a CSV.
    /// - Throws: `ImportError`.
    public static func importStores(
        from path: String, format: ImportFormat? = nil, into store: some ExpenseStore,
        options: ImportOptions = ImportOptions()
    ) async throws -> ImportReport {
        try await parsingAhead(path: path, options: options, into: store, insertions: { StoreInsertions(writer: $0) }) { emit in
            try parseStores(from: path, format: format, emit)
        }
    }

    /// `importStores` inside a write scope.
    public static func importStores(
        from path: String, format: ImportFormat? = nil, options: ImportOptions = ImportOptions(), writer: any ExpenseWriter
    ) throws -> ImportReport {
        try run(path: path, options: options, insertions: StoreInsertions(writer: writer)) { emit in
            try inBatches({ try parseStores(from: path, format: format, $0) }, emit)
        }
    }

    /// Reads a store file, handing each store (hashed, or its error) to `emit`.
    /// - Returns: the bytes read.
    private static func parseStores(from path: String, format: ImportFormat?, _ emit: (ParsedRow<Store>) throws -> Void) throws -> Int64 {
        let format = format ?? ImportFormat.guess(path: path) ?? .csv
        guard format != .jsonl else {
            throw ImportError.unreadable(file: path, reason: "stores are imported from GeoJSON, GPX or CSV, not JSON Lines")
        }
        var seenIDs = Set<String>()
        func handle(_ s: Store, _ location: String) throws {
            guard seenIDs.insert(s.id).inserted else { return try emit(.failure(duplicateID(s.id, file: path, location: location))) }
            try emit(.row(HashedRow(s, contentHash: s.contentHash), location: location))
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

    /// A validated record with its content hash and where it came from, or a rejected row.
    fileprivate enum ParsedRow<Record: Sendable>: Sendable {
        case row(HashedRow<Record>, location: String)
        case failure(RowError)
        /// A row a preset leaves out on purpose.
        case skipped
    }

    private static func duplicateID(_ id: String, file: String, location: String) -> RowError {
        RowError(file: file, location: location, column: "id", reason: "\(ValueError.quote(id)) appears earlier in this file for the same user; ids must be unique per user")
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

    /// The shared skeleton, inside the write scope: batches of rows read and validated go to
    /// `insertions`, each row's outcome is counted, and the scope rolled back (by throwing) when
    /// any row was bad, unless skipping. A writer's `RowRejection` becomes a row error at the
    /// row's location.
    fileprivate static func run<I: Insertions>(
        path: String, options: ImportOptions, insertions: I,
        read: (_ emit: (ParsedBatch<I.Record>) throws -> Void) throws -> Int64
    ) throws -> ImportReport {
        var report = ImportReport()
        let listed = ImportOptions.maximumListedErrors
        func count(_ outcome: RowOutcome?, id: @autoclosure () -> String, at location: String) throws {
            switch outcome {
            case .inserted?: report.inserted += 1
            case .unchanged?: report.unchanged += 1
            case .updated?:
                report.updated += 1
                if report.updatedIDs.count < listed { report.updatedIDs.append(id()) }
            case .duplicate(let storedID)?:
                report.duplicates += 1
                if report.duplicateNotes.count < listed {
                    report.duplicateNotes.append(DuplicateNote(location: location, id: id(), storedID: storedID))
                }
            case nil: report.skipped += 1
            case .rejected(let e)?: try fail(RowError(file: path, location: location, column: e.column, reason: e.reason))
            }
            let rows = report.inserted + report.unchanged + report.updated + report.duplicates + report.rejected + report.skipped
            if rows % 10_000 == 0 { options.progress?(rows) }
        }
        func fail(_ e: RowError) throws {
            report.rejected += 1
            if report.errors.count < listed { report.errors.append(e) }
            // All or nothing: after the last listed bad row the rest of the file is not read.
            if !options.skipInvalid && report.rejected == listed {
                throw ImportError.rejected(errors: report.errors, badRows: report.rejected)
            }
        }
        // The outcomes of a batch's good rows, counted in file order with its bad ones.
        report.bytesRead = try read { batch in
            let outcomes = try insertions.insert(batch.rows)
            var next = 0
            for entry in batch.entries {
                switch entry {
                case .failure(let e): try fail(e)
                case .skipped: try count(nil, id: "", at: "")
                case .row:
                    try count(outcomes[next], id: insertions.id(of: batch.rows[next]), at: batch.locations[next])
                    next += 1
                }
            }
            // Rows counted as duplicates in earlier batches that turned out not to be.
            for again in try insertions.settle(batch.rows, batch.locations, outcomes) {
                report.duplicates -= 1
                report.duplicateNotes.removeAll { $0.location == again.location }
                try count(again.outcome, id: again.id, at: again.location)
            }
        }
        if report.rejected > 0 && !options.skipInvalid {
            throw ImportError.rejected(errors: report.errors, badRows: report.rejected)
        }
        return report
    }

    /// Rows per batch handed to the writer.
    static let batchSize = 4096

    /// Runs `parse`, handing what it emits to `emit` in batches of `batchSize` rows.
    /// - Returns: what `parse` returns (the bytes read).
    fileprivate static func inBatches<Record: Sendable>(
        _ parse: (_ emit: (ParsedRow<Record>) throws -> Void) throws -> Int64, _ emit: (ParsedBatch<Record>) throws -> Void
    ) throws -> Int64 {
        try withoutActuallyEscaping(emit) { emit in
            var batch = ParsedBatch<Record>(capacity: batchSize)
            let bytes = try parse { item in
                switch item {
                case .row(let row, let location): batch.append(row, location: location)
                case .failure(let e): batch.append(failure: e)
                case .skipped: batch.appendSkipped()
                }
                if batch.count == batchSize {
                    try emit(batch)
                    batch = ParsedBatch(capacity: batchSize)
                }
            }
            if batch.count > 0 { try emit(batch) }
            return bytes
        }
    }
}

extension Importer {
    /// `run` with the parsing on a dispatch thread (`offloaded`) while the write scope writes:
    /// the two stages meet in a `ParseAhead`. When the write scope ends early (a rejection, a
    /// store error) the parser is stopped and waited for before the error goes on.
    fileprivate static func parsingAhead<I: Insertions>(
        path: String, options: ImportOptions, into store: some ExpenseStore,
        insertions: @escaping @Sendable (any ExpenseWriter) -> I,
        parse: @escaping @Sendable (_ emit: (ParsedRow<I.Record>) throws -> Void) throws -> Int64
    ) async throws -> ImportReport {
        let handoff = ParseAhead<ParsedBatch<I.Record>>()
        async let bytesRead: Int64 = offloaded {
            do {
                let bytes = try inBatches(parse) { try handoff.put($0) }
                handoff.finish()
                return bytes
            } catch {
                handoff.finish(throwing: error)
                throw error
            }
        }
        do {
            var report = try await store.write { writer in
                try run(path: path, options: options, insertions: insertions(writer)) { emit in
                    while let batch = try handoff.take() { try emit(batch) }
                    return 0
                }
            }
            report.bytesRead = try await bytesRead
            return report
        } catch {
            handoff.cancel()
            _ = try? await bytesRead
            throw error
        }
    }
}
