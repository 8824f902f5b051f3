import Foundation

/// What a density surface will cost, estimated before the work starts, and the bound past
/// which an export is refused. The kernel is evaluated at every cell centre in the square
/// around each expense: `(⌊2h/c⌋ + 2)²` evaluations per expense for bandwidth h and cell c,
/// and the surface holds up to one cell per evaluation (fewer where the squares overlap).
/// `export density --all-users --cell 11.2m --bandwidth 2240m` over 970k expenses was 1.6·10¹¹
/// evaluations: it ran for minutes without a word (issue 22, item 13).
struct DensityCost: Equatable {
    let bandwidthMeters: Double
    let cellMeters: Double
    let expenses: Int
    /// Kernel evaluations per expense.
    let footprint: Int
    /// Cells the surface may hold: the smaller of the evaluations and the cells that cover the
    /// expenses' extents widened by the bandwidth.
    let cells: Int

    var evaluations: Int { expenses.multipliedReportingOverflow(by: footprint).overflow ? .max : expenses * footprint }

    /// A debug build did 1.5–1.8·10⁷ evaluations a second here (100k expenses, --bandwidth 500m
    /// on 50 m and 25 m cells: 3.0 s and 11.5 s), so this is about two minutes of it.
    static let maximumEvaluations = 2_000_000_000
    /// A cell's sums take ~100 bytes: about 1.2 GB.
    static let maximumCells = 12_000_000

    init(bandwidthMeters h: Double, cellMeters c: Double, extents: [GeotaggedExtent]) {
        (bandwidthMeters, cellMeters) = (h, c)
        let side = Int((2 * h / c).rounded(.down)) + 2  // i0...i1 spans at most this many cells
        footprint = side * side
        expenses = extents.reduce(0) { $0 + $1.count }
        var areaCells = 0.0
        for e in extents {
            let latitude = (e.south + e.north) / 2 * .pi / 180
            let span = min(e.east - e.west, e.east360 - e.west360)
            let width = span * 111_320 * cos(latitude) + 2 * h, height = (e.north - e.south) * 110_574 + 2 * h
            areaCells += (width / c + 1) * (height / c + 1)
        }
        let disk = Double(expenses) * Double.pi * (h / c) * (h / c)
        cells = Int(min(areaCells, disk, Double(Int.max / 2)).rounded(.up))
    }

    /// - Throws: `ExportError.tooMuchWork` naming the cost and how to bring it down.
    func check() throws(ExportError) {
        let (h, c) = (bandwidthMeters, cellMeters)
        guard evaluations > Self.maximumEvaluations || cells > Self.maximumCells else { return }
        let what = evaluations > Self.maximumEvaluations
            ? "\(Self.approximately(Double(evaluations))) kernel evaluations (\(expenses) expenses × \(footprint) cells each); the limit is \(Self.approximately(Double(Self.maximumEvaluations)))"
            : "up to \(Self.approximately(Double(cells))) cells in memory; the limit is \(Self.approximately(Double(Self.maximumCells)))"
        throw .tooMuchWork(
            "a density surface with --bandwidth \(formatDecimal(h, digits: 1))m on --cell \(formatDecimal(c, digits: 1))m over these expenses would take \(what). "
                + "Use a larger --cell (doubling it divides the work by 4), a smaller --bandwidth, a shorter --from/--to window, or one --user")
    }

    /// `1.6e11`-style figures for messages.
    static func approximately(_ x: Double) -> String {
        x < 10_000 ? String(Int(x.rounded())) : String(format: "%.1e", x)
    }
}
