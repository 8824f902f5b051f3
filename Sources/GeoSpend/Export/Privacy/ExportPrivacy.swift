import Foundation

/// Location privacy of a shared export (besides `MapExportRequest.minCount`/`minUsers`):
/// masks around sensitive places (all layers), and for point layers (points, CSV,
/// leaflet-heat, places) planar Laplace noise and coordinate rounding.
///
/// ```swift
/// let home = LocationMask(center: try Coordinate(latitude: 60.17, longitude: 24.94), radiusMeters: 500)
/// let privacy = ExportPrivacy(masks: [home], maskKey: try MaskKey(hex: "00112233445566778899aabbccddeeff"),
///                             roundDecimals: 3, geoNoiseEpsilon: 0.01)
/// let request = MapExportRequest(filter: ExpenseFilter(userID: "ann"), privacy: privacy)
/// ```
public struct ExportPrivacy: Sendable {
    /// Places whose surroundings are left out of every layer (see `LocationMask`).
    public var masks: [LocationMask]
    /// The secret that places each mask's dropped region; keep it, and the regions stay put.
    public var maskKey: MaskKey
    /// Point layers: coordinates rounded to this many decimals before anything is written.
    public var roundDecimals: Int?
    /// Point layers: planar Laplace noise, ε per metre (mean displacement 2/ε).
    public var geoNoiseEpsilon: Double?
    /// Noise seed for reproducible output (tests); random per export when nil. Never written.
    public var seed: UInt64?

    public init(
        masks: [LocationMask] = [], maskKey: MaskKey = MaskKey(k0: 0, k1: 0), roundDecimals: Int? = nil,
        geoNoiseEpsilon: Double? = nil, seed: UInt64? = nil
    ) {
        self.masks = masks
        self.maskKey = maskKey
        self.roundDecimals = roundDecimals
        self.geoNoiseEpsilon = geoNoiseEpsilon
        self.seed = seed
    }

    var isActive: Bool { !masks.isEmpty || roundDecimals != nil || geoNoiseEpsilon != nil }

    /// The `privacy` member of a layer's provenance: every parameter except the mask centres,
    /// the mask key and the seed.
    func provenance(pointLayer: Bool) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("masks", .integer(Int64(masks.count))),
            ("mask_radius_m", .array(masks.map { .number($0.radiusMeters, decimals: 1) })),
        ]
        if !masks.isEmpty {
            members.append(("mask_method", .string(
                "dropped: every position within 2R of a secret point R/2 to R from each masked place (never centred on it)")))
        }
        members.append(("round", roundDecimals.map { .integer(Int64($0)) } ?? .null))
        members.append(("geo_noise_epsilon_per_m", geoNoiseEpsilon.map { .number($0, decimals: 9) } ?? .null))
        if geoNoiseEpsilon != nil || roundDecimals != nil {
            members.append(("applies_to", .string(pointLayer ? "this layer's positions" : "point layers only, not this one")))
        }
        return .object(members)
    }
}

/// What an export does to each position, built once per export: the masks' regions and the
/// noise seed are fixed for the whole file, so a counting pass and the writing pass agree.
struct PositionPrivacy {
    let regions: [MaskRegion]
    let roundDecimals: Int?
    let epsilon: Double?
    private let seed: UInt64

    init(_ privacy: ExportPrivacy) {
        regions = privacy.masks.map { $0.region(key: privacy.maskKey) }
        roundDecimals = privacy.roundDecimals
        epsilon = privacy.geoNoiseEpsilon
        var system = SystemRandomNumberGenerator()
        seed = privacy.seed ?? system.next()
    }

    /// True when a true position lies in a mask's dropped region (all layers).
    @inline(__always)
    func isMasked(latitude: Double, longitude: Double) -> Bool {
        !regions.isEmpty && regions.contains { $0.contains(latitude: latitude, longitude: longitude) }
    }

    /// The position a point layer publishes for item `id` at `c`, or nil when it is left out:
    /// masked (true position) → noised → rounded → masked again, so neither the true nor the
    /// written position of any exported point lies in a dropped region.
    func published(_ c: Coordinate, id: String) -> Coordinate? {
        if isMasked(latitude: c.latitude, longitude: c.longitude) { return nil }
        var out = c
        if let epsilon {
            // One stream per item: the same item gets the same noise in both passes.
            var h = FNV1a()
            h.add(id)
            var rng = SplitMix64(seed: seed ^ h.value)
            out = PlanarLaplace.displace(c, epsilon: epsilon, using: &rng)
        }
        if let n = roundDecimals {
            let scale = pow(10, Double(n))
            let lat = (out.latitude * scale).rounded() / scale
            var lon = (out.longitude * scale).rounded() / scale
            if lon < -180 { lon += 360 } else if lon > 180 { lon -= 360 }
            out = Coordinate(uncheckedLatitude: max(-90, min(90, lat)), longitude: lon)
        }
        if isMasked(latitude: out.latitude, longitude: out.longitude) { return nil }
        return out
    }
}
