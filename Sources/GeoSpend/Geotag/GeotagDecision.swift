/// Which evidence placed an expense: the names are the JSON `source` values.
public enum GeotagSource: String, Sendable, Hashable, CaseIterable {
    case history
    case merchant
    case historyAndMerchant = "history+merchant"
}

/// An expense placed on the map. Maps to one entry of the JSON `placed` array:
/// `{"id", "lat", "lon", "accuracy_m", "store_id", "confidence", "source"}` (+ `evidence`).
public struct GeotagPlacement: Sendable, Hashable {
    public var id: String
    /// WGS84.
    public var coordinate: Coordinate
    public var accuracyMeters: Double
    /// The store it was paid at, when the merchant text and the history agree on one.
    public var storeID: String?
    /// 0…1; calibrated on the simulator (docs/GEOTAG.md): of placements ≥ 0.9, ≥ 90 % are right.
    public var confidence: Double
    public var source: GeotagSource
    /// The evidence in words, for review.
    public var evidence: String

    public init(id: String, coordinate: Coordinate, accuracyMeters: Double, storeID: String?, confidence: Double, source: GeotagSource, evidence: String) {
        self.id = id
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.storeID = storeID
        self.confidence = confidence
        self.source = source
        self.evidence = evidence
    }
}

/// One store an ambiguous expense may have been paid at. Maps to
/// `{"store_id", "lat", "lon", "score"}`.
public struct GeotagCandidate: Sendable, Hashable {
    public var storeID: String
    public var coordinate: Coordinate
    /// 0…1: how well the name matches, lowered by the distance from the person's stays.
    public var score: Double

    public init(storeID: String, coordinate: Coordinate, score: Double) {
        self.storeID = storeID
        self.coordinate = coordinate
        self.score = score
    }
}

/// An expense with several possible stores and nothing to choose between them: for review.
/// Maps to `{"id", "candidates": […]}`.
public struct GeotagAmbiguity: Sendable, Hashable {
    public var id: String
    /// Best first.
    public var candidates: [GeotagCandidate]
    public var evidence: String

    public init(id: String, candidates: [GeotagCandidate], evidence: String) {
        self.id = id
        self.candidates = candidates
        self.evidence = evidence
    }
}

/// Why an expense was not placed: the JSON `reason` values.
public enum GeotagUnplacedReason: String, Sendable, Hashable, CaseIterable {
    /// Income, salary or transfer: money that was not spent at a place.
    case notAnExpense = "not-an-expense"
    /// Paid online (web shop, subscription, app store, delivery or ride app, domain, monthly series).
    case online
    /// No merchant text and no history at that time.
    case noEvidence = "no-evidence"
    /// A date-only booking whose merchant matches no store near the day's stays and no single store.
    case noMatch = "no-match"
    /// The history is too uncertain at that time (accuracy worse than the limit).
    case imprecise
}

/// An expense left where it was. Maps to `{"id", "reason"}` (+ `detail`).
public struct GeotagUnplaced: Sendable, Hashable {
    public var id: String
    public var reason: GeotagUnplacedReason
    public var detail: String

    public init(id: String, reason: GeotagUnplacedReason, detail: String) {
        self.id = id
        self.reason = reason
        self.detail = detail
    }
}

/// The geotagger's answer for one expense.
public enum GeotagDecision: Sendable, Hashable {
    case placed(GeotagPlacement)
    case ambiguous(GeotagAmbiguity)
    case unplaced(GeotagUnplaced)

    public var id: String {
        switch self {
        case .placed(let p): return p.id
        case .ambiguous(let a): return a.id
        case .unplaced(let u): return u.id
        }
    }
}

/// The answers for a run, in three lists as the JSON output has them, each in input order.
public struct GeotagReport: Sendable, Hashable {
    public var placed: [GeotagPlacement] = []
    public var ambiguous: [GeotagAmbiguity] = []
    public var unplaced: [GeotagUnplaced] = []

    public init(_ decisions: [GeotagDecision]) {
        for d in decisions {
            switch d {
            case .placed(let p): placed.append(p)
            case .ambiguous(let a): ambiguous.append(a)
            case .unplaced(let u): unplaced.append(u)
            }
        }
    }

    /// Keeps the placements at or above `minimumConfidence`; the others become ambiguous with
    /// their one candidate (a store) or unplaced (`imprecise`).
    public func filtered(minimumConfidence: Double) -> GeotagReport {
        var out = self
        out.placed = []
        for p in placed {
            if p.confidence >= minimumConfidence {
                out.placed.append(p)
            } else if let s = p.storeID {
                out.ambiguous.append(GeotagAmbiguity(id: p.id, candidates: [GeotagCandidate(storeID: s, coordinate: p.coordinate, score: p.confidence)], evidence: p.evidence))
            } else {
                out.unplaced.append(GeotagUnplaced(id: p.id, reason: .imprecise, detail: "confidence \(p.confidence) below \(minimumConfidence): \(p.evidence)"))
            }
        }
        return out
    }
}
