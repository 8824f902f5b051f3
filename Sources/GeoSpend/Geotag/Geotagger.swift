import Foundation

/// Decides where each of a user's expenses was paid, from the user's location history and the
/// merchant text, as a pure function of its inputs (docs/GEOTAG.md § The decision).
///
/// ```swift
/// let tagger = Geotagger(history: history, stores: stores, timeZone: TimeZone(identifier: "Europe/Helsinki")!)
/// let report = tagger.geotag(expenses.map { GeotagExpense($0) })
/// ```
///
/// Rules:
/// - income, transfers and salaries are never placed; online payments (`MerchantDescriptor`
///   verdict, or a monthly series) are never placed;
/// - a timestamped payment: where the phone was then (`PositionEstimate`); the store the text
///   names near there, else that spot (history alone) when the fixes are precise; without
///   history at that time, the one store the text names (merchant alone) — a chain with several
///   branches is then ambiguous, never guessed;
/// - a date-only booking: the stores the text names near that local day's stays or the day
///   before's (card payments book late); one store → placed, several → ambiguous.
///
/// - Complexity: O(log n + k) per expense for n positions and k visits in the day, plus the
///   matcher's bucket; no join of expenses against positions.
public struct Geotagger: Sendable {
    public let history: LocationHistory
    public let matcher: StoreMatcher
    /// The user's zone: bare dates are local days in it.
    public let timeZone: TimeZone
    /// A store this close to the person's estimated spot, beyond the spot's accuracy, is "here".
    public var storeSlackMeters = 40.0
    /// History alone places a payment only when the spot is known to this radius.
    public var historyOnlyAccuracyMeters = 60.0
    /// How close to a stay's centre a store must be for a date-only booking.
    public var stayReachMeters = 80.0
    /// The same for one branch of a chain, and the longest stay that counts for it.
    public var chainStayReachMeters = 30.0
    public var chainStayMilliseconds: Int64 = 3_600_000

    /// - Parameters:
    ///   - history: the user's history; stays are detected from its fixes and added to the
    ///     visits it recorded.
    public init(history: LocationHistory, stores: [Store], timeZone: TimeZone, detector: StayDetector = StayDetector()) {
        self.history = history.withDetectedStays(detector)
        self.matcher = StoreMatcher(stores: stores)
        self.timeZone = timeZone
    }

    /// Decides every expense; monthly series among them are treated as online.
    /// - Complexity: O(m (log n + k)) for m expenses.
    public func geotag(_ expenses: [GeotagExpense]) -> GeotagReport {
        var cache: [String: (MerchantDescriptor, [StoreCandidate])] = [:]
        var decisions: [GeotagDecision] = []
        decisions.reserveCapacity(expenses.count)
        for e in expenses {
            decisions.append(decide(e, cache: &cache))
        }
        return GeotagReport(decisions)
    }

    /// Decides one expense.
    public func decide(_ e: GeotagExpense) -> GeotagDecision {
        var cache: [String: (MerchantDescriptor, [StoreCandidate])] = [:]
        return decide(e, cache: &cache)
    }

    private func decide(_ e: GeotagExpense, cache: inout [String: (MerchantDescriptor, [StoreCandidate])]) -> GeotagDecision {
        func unplaced(_ r: GeotagUnplacedReason, _ detail: String) -> GeotagDecision {
            .unplaced(GeotagUnplaced(id: e.id, reason: r, detail: detail))
        }
        guard e.kind == .expense else { return unplaced(.notAnExpense, "a \(e.kind.rawValue) is not spent at a place") }
        var descriptor: MerchantDescriptor?
        var candidates: [StoreCandidate] = []
        if let text = e.merchantText, !text.isEmpty {
            if let hit = cache[text] {
                (descriptor, candidates) = (hit.0, hit.1)
            } else {
                let d = MerchantDescriptor(parsing: text)
                let c = d.isOnline ? [] : matcher.candidates(for: d)
                cache[text] = (d, c)
                (descriptor, candidates) = (d, c)
            }
        }
        if let d = descriptor {
            if Self.isSalary(d.matchKey) { return unplaced(.notAnExpense, "the text reads as a salary or transfer") }
            if d.isOnline { return unplaced(.online, "online: \(d.onlineReason ?? "")") }
        }
        if e.isRecurring { return unplaced(.online, "online: the same amount every month (a subscription)") }
        let merchantName = descriptor.map { "'\($0.name)'" } ?? "no merchant text"
        if !e.occurredAt.isDateOnly, let spot = PositionEstimate.estimate(in: history, at: e.occurredAt.epochMilliseconds) {
            return timed(e, spot: spot, candidates: candidates, merchantName: merchantName)
        }
        return daily(e, candidates: candidates, merchantName: merchantName)
    }

    private func timed(_ e: GeotagExpense, spot: PositionEstimate, candidates: [StoreCandidate], merchantName: String) -> GeotagDecision {
        let reach = spot.accuracyMeters + storeSlackMeters
        let near = candidates
            .map { ($0, Geodesic.distance($0.store.coordinate, spot.coordinate)) }
            .filter { $0.1 <= reach }
            .sorted { ($0.1, $0.0.store.id) < ($1.1, $1.0.store.id) }
        let whereText = "phone at \(Self.format(spot.coordinate)) ±\(Int(spot.accuracyMeters.rounded())) m, \(spot.gapMilliseconds / 1000) s from a fix"
        if let first = near.first {
            // The nearest branch wins only when the next is further by more than the spot's radius.
            let clear = near.count == 1 || (first.1 * 2 + 10 < near[1].1 && near[1].1 - first.1 > spot.accuracyMeters)
            if clear {
                var confidence = 0.97 * min(1, first.0.score + 0.05)
                if spot.accuracyMeters > 100 { confidence *= 0.85 }
                if near.count > 1 { confidence *= 0.93 }
                return .placed(GeotagPlacement(
                    id: e.id, coordinate: first.0.store.coordinate, accuracyMeters: 10, storeID: first.0.store.id,
                    confidence: Self.round(confidence), source: .historyAndMerchant,
                    evidence: "\(whereText); \(merchantName) names \(first.0.store.displayName) (\(Self.round(first.0.score))) \(Int(first.1.rounded())) m away"))
            }
            return .ambiguous(GeotagAmbiguity(
                id: e.id,
                candidates: near.map { GeotagCandidate(storeID: $0.0.store.id, coordinate: $0.0.store.coordinate, score: Self.round($0.0.score * max(0.1, 1 - $0.1 / (reach * 2)))) },
                evidence: "\(whereText); \(near.count) stores named \(merchantName) within \(Int(reach.rounded())) m"))
        }
        guard spot.accuracyMeters <= historyOnlyAccuracyMeters else {
            if candidates.count == 1 { return merchantOnly(e, candidates[0], merchantName, note: "history too vague at that time") }
            return .unplaced(GeotagUnplaced(id: e.id, reason: .imprecise, detail: "\(whereText): too vague to place without a store"))
        }
        // History alone: the text names no store near (one missing from the registry).
        var confidence = spot.accuracyMeters <= 25 ? 0.88 : 0.8
        if !candidates.isEmpty { confidence -= 0.1 }  // it names a store elsewhere: a missing branch, or a misread
        return .placed(GeotagPlacement(
            id: e.id, coordinate: spot.coordinate, accuracyMeters: Self.round(spot.accuracyMeters), storeID: nil,
            confidence: Self.round(confidence), source: .history,
            evidence: "\(whereText); \(merchantName) names \(candidates.isEmpty ? "no known store" : "only stores further away")"))
    }

    private func merchantOnly(_ e: GeotagExpense, _ c: StoreCandidate, _ merchantName: String, note: String) -> GeotagDecision {
        .placed(GeotagPlacement(
            id: e.id, coordinate: c.store.coordinate, accuracyMeters: 10, storeID: c.store.id,
            confidence: Self.round(0.8 * c.score), source: .merchant,
            evidence: "\(note); \(merchantName) names one store, \(c.store.displayName) (\(Self.round(c.score)))"))
    }

    private func daily(_ e: GeotagExpense, candidates: [StoreCandidate], merchantName: String) -> GeotagDecision {
        let (dayStart, dayEnd) = localDay(e.occurredAt)
        let stays = history.visits(overlappingFrom: dayStart - 86_400_000, to: dayEnd)
        guard !candidates.isEmpty else {
            let what = stays.isEmpty ? "no history that day" : "\(stays.count) stays that day"
            return .unplaced(GeotagUnplaced(id: e.id, reason: candidates.isEmpty && merchantName == "no merchant text" ? .noEvidence : .noMatch, detail: "\(merchantName) names no known store; \(what)"))
        }
        // Each candidate's closest stay, the booking day's before the day before's.
        var near: [(candidate: StoreCandidate, distance: Double, sameDay: Bool)] = []
        // With several stores of one name (a chain), a stay only counts when it is short and
        // close: home and work near a branch are where people live, not where they paid.
        let chain = candidates.count > 1 && !candidates.contains(where: \.branchNamed)
        for c in candidates {
            var best: (Double, Bool)?
            for s in stays {
                if chain && s.endEpochMilliseconds - s.startEpochMilliseconds > chainStayMilliseconds { continue }
                let d = Geodesic.distance(c.store.coordinate, s.centre)
                let reach = chain ? chainStayReachMeters : stayReachMeters + min(60, s.radiusMeters ?? 20)
                guard d <= reach else { continue }
                let sameDay = s.endEpochMilliseconds > dayStart
                if best == nil || (sameDay && !best!.1) || (sameDay == best!.1 && d < best!.0) { best = (d, sameDay) }
            }
            if let b = best { near.append((c, b.0, b.1)) }
        }
        if near.contains(where: \.sameDay) { near.removeAll { !$0.sameDay } }
        near.sort { ($0.distance, $0.candidate.store.id) < ($1.distance, $1.candidate.store.id) }
        if let first = near.first {
            if near.count == 1 || first.distance * 3 + 10 < near[1].distance {
                var confidence = 0.96 * min(1, first.candidate.score + 0.05)
                if !first.sameDay { confidence *= 0.97 }
                if chain { confidence = min(confidence, 0.88) }  // the paid branch's stay may be missing
                if near.count > 1 { confidence *= 0.9 }
                return .placed(GeotagPlacement(
                    id: e.id, coordinate: first.candidate.store.coordinate, accuracyMeters: 10, storeID: first.candidate.store.id,
                    confidence: Self.round(confidence), source: .historyAndMerchant,
                    evidence: "booked \(e.occurredAt.localDate); a stay \(Int(first.distance.rounded())) m from \(first.candidate.store.displayName) \(first.sameDay ? "that day" : "the day before"); \(merchantName) names it (\(Self.round(first.candidate.score)))"))
            }
            return .ambiguous(GeotagAmbiguity(
                id: e.id,
                candidates: near.map { GeotagCandidate(storeID: $0.candidate.store.id, coordinate: $0.candidate.store.coordinate, score: Self.round($0.candidate.score * max(0.1, 1 - $0.distance / 200))) },
                evidence: "booked \(e.occurredAt.localDate); \(near.count) stores named \(merchantName) near that day's stays"))
        }
        if candidates.count == 1 {
            return merchantOnly(e, candidates[0], merchantName, note: stays.isEmpty ? "no history that day" : "no stay near it that day")
        }
        return .ambiguous(GeotagAmbiguity(
            id: e.id,
            candidates: candidates.prefix(20).map { GeotagCandidate(storeID: $0.store.id, coordinate: $0.store.coordinate, score: Self.round($0.score * 0.5)) },
            evidence: "\(merchantName) names \(candidates.count) stores (a chain) and no stay that day is near one"))
    }

    /// The local day of a bare date in the user's zone, or of an instant at its recorded offset,
    /// as `[start, end)` epoch milliseconds.
    func localDay(_ t: Timestamp) -> (Int64, Int64) {
        if let offset = t.utcOffsetMinutes {
            let local = t.epochMilliseconds + Int64(offset) * 60_000
            let day = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
            let start = day * 86_400_000 - Int64(offset) * 60_000
            return (start, start + 86_400_000)
        }
        let utcMidnight = t.epochMilliseconds
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utcMidnight) / 1000 + 43_200))) * 1000
        return (utcMidnight - offset, utcMidnight - offset + 86_400_000)
    }

    static func isSalary(_ key: String) -> Bool {
        let words = key.split(separator: " ")
        return words.contains { ["palkka", "salary", "lohn", "gehalt", "lon", "payroll", "wages"].contains($0) }
    }

    static func round(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    static func format(_ c: Coordinate) -> String {
        "\(round(c.latitude * 100) / 100),\(round(c.longitude * 100) / 100)"
    }
}
