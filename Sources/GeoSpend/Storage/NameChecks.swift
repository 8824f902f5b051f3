/// Names typed on the command line (or in a request) that match nothing stored — a user, a
/// category, a store kind — are usage errors (exit 2, HTTP 4xx) with the nearest existing name
/// suggested: an empty result caused by a typo must not read like "no spending here". One name
/// is suggested, never a list (a list of other users' ids helps no one fix a typo). The CLI and
/// the service share these checks, so both say the same.
public enum NameChecks {
    public static func user(_ id: String, in store: some ExpenseStore, database: String) async throws {
        try await store.read { try user(id, in: $0, database: database) }
    }

    /// `user(_:in:database:)` inside a read scope the caller holds (the service checks a
    /// request's token, names and query in one).
    public static func user(_ id: String, in reader: any ExpenseReader, database: String) throws {
        let id = Identity.normalized(id)
        guard !(try reader.hasUser(id)) else { return }
        let known = try reader.userIDs()
        throw UsageError(
            "no user \"\(OutputEscaping.visible(id))\" in \(database)\(hint(suggestion(for: id, among: known))); "
                + "`geospend users list` shows the users")
    }

    /// Each `--category` must name a category of the user (of any user with nil), compared as
    /// the filter compares them: ASCII letters case-insensitively.
    public static func categories(_ names: [String], userID: String?, in store: some ExpenseStore) async throws {
        guard !names.isEmpty else { return }
        try await store.read { try categories(names, userID: userID, in: $0) }
    }

    /// `categories(_:userID:in:)` inside a read scope the caller holds.
    public static func categories(_ names: [String], userID: String?, in reader: any ExpenseReader) throws {
        guard !names.isEmpty else { return }
        let known = Set(try reader.categoryCounts(userID: userID.map(Identity.normalized)).map(\.name))
        let folded = Set(known.map { ExactText(Identity.asciiLowercased($0)) })
        for name in names where !folded.contains(ExactText(Identity.asciiLowercased(Identity.normalized(name)))) {
            let whose = userID.map { " of user \"\(OutputEscaping.visible(Identity.normalized($0)))\"" } ?? ""
            throw UsageError(
                "--category \(OutputEscaping.visible(name)): no such category\(whose)\(hint(suggestion(for: name, among: known.sorted()))); "
                    + "`geospend categories\(userID == nil ? "" : " --user U")` lists them")
        }
    }

    /// A store `--kind` must be one some store has (`amenity:cafe`); `cafe` suggests it.
    public static func storeKind(_ kind: String?, in store: some ExpenseStore) async throws {
        guard kind != nil else { return }
        try await store.read { try storeKind(kind, in: $0) }
    }

    /// `storeKind(_:in:)` inside a read scope the caller holds.
    public static func storeKind(_ kind: String?, in reader: any ExpenseReader) throws {
        guard let kind else { return }
        let known = try reader.storeKindCounts().compactMap(\.kind)
        guard !known.contains(where: { ExactText($0) == ExactText(kind) }) else { return }
        throw UsageError(
            "--kind \(OutputEscaping.visible(kind)): no store has this kind\(hint(suggestion(for: kind, among: known))); "
                + "`geospend kinds` lists them")
    }

    /// The user's period `id` (nil without one), checked to exist; another user's period is
    /// "none" too.
    public static func period(_ id: Int64?, user: String, in store: some PeriodStore, option: String = "--period") async throws -> Period? {
        guard let id else { return nil }
        guard let p = try await store.period(userID: user, id: id) else { throw noPeriod(id, user: user) }
        return p
    }

    /// `period(_:user:in:option:)` inside a read scope, in its snapshot.
    public static func period(_ id: Int64?, user: String, in reader: some PeriodReader, option: String = "--period") throws -> Period? {
        guard let id else { return nil }
        guard let p = try reader.period(userID: user, id: id) else { throw noPeriod(id, user: user) }
        return p
    }

    public static func noPeriod(_ id: Int64, user: String) -> UsageError {
        let u = OutputEscaping.visible(Identity.normalized(user))
        return UsageError("no period \(id) of user \"\(u)\"; `geospend periods list --user \(u)` lists them")
    }

    private static func hint(_ name: String?) -> String {
        name.map { " (did you mean \"\(OutputEscaping.visible($0))\"?)" } ?? ""
    }

    /// The existing name closest to `typed`: the same letters in another case first, then the
    /// same text after a `key:` prefix (`cafe` → `amenity:cafe`), then the smallest edit
    /// distance when it is at most a third of the name (at least 1, at most 3); ties go to the
    /// first in sorted order. Nil when nothing is that close.
    public static func suggestion(for typed: String, among names: [String]) -> String? {
        let t = Array(typed.lowercased().unicodeScalars)
        let sorted = names.sorted()
        if let same = sorted.first(where: { $0.lowercased() == typed.lowercased() }) { return same }
        let tail = { (name: String) in name.split(separator: ":", maxSplits: 1).last.map { String($0).lowercased() } ?? "" }
        if let prefixed = sorted.first(where: { $0.contains(":") && tail($0) == typed.lowercased() }) { return prefixed }
        let limit = min(3, max(1, t.count / 3))
        var best: (distance: Int, name: String)?
        for name in sorted {
            let whole = EditDistance.levenshtein(t, Array(name.lowercased().unicodeScalars))
            let part = name.contains(":") ? EditDistance.levenshtein(t, Array(tail(name).unicodeScalars)) : whole
            let d = min(whole, part)
            if d <= limit && d < (best?.distance ?? .max) { best = (d, name) }
        }
        return best?.name
    }
}

/// Bad input from the command line or a request — a name that matches nothing stored (see
/// `NameChecks`), a window that holds nothing — with the fix in `message`.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
