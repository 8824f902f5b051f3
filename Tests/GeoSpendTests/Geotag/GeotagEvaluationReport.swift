import Foundation
import GeoSpend
import Testing

/// The figures docs/GEOTAG.md reports: 20 people × 28 days on seeds 1–8. Off by default
/// (minutes in a debug build): `GEOSPEND_GEOTAG_EVAL=1 swift test --filter GeotagEvaluationReport`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["GEOSPEND_GEOTAG_EVAL"] != nil))
struct GeotagEvaluationReport {
    @Test(arguments: Array(1...8) as [UInt64])
    func figures(seed: UInt64) throws {
        let simulation = GeotagSimulator(stores: GeotagEvaluationTests.places, configuration: .init(seed: seed, people: 20, days: 28))
        let e = GeotagEvaluation(simulation: simulation)
        let expenses = simulation.people.reduce(0) { $0 + $1.expenses.count }
        let fixes = simulation.people.reduce(0) { $0 + $1.history.positions.count }
        print("GEOTAG-EVAL seed \(seed) people 20 days 28 expenses \(expenses) fixes \(fixes) | " + e.description.split(separator: "\n").joined(separator: " | ") + " | unmet: \(e.unmetGoals)")
        for m in e.mistakes.prefix(5) { print("GEOTAG-EVAL seed \(seed) mistake: \(m)") }
        #expect(e.placed > 0)
    }
}
