import GeoSpend
import Testing

/// The geotagger against the goals of issue 36 on simulated people in Helsinki, on several
/// seeds; and the evaluation itself checked to fail when the answers are wrong.
@Suite struct GeotagEvaluationTests {
    static let places: [Store] = (try? Importer.readStores(from: Fixtures.path("Data/helsinki-places.geojson"))) ?? []

    @Test(arguments: [1, 2, 3] as [UInt64])
    func meetsTheGoals(seed: UInt64) throws {
        try #require(Self.places.count > 900)
        let simulation = GeotagSimulator(stores: Self.places, configuration: .init(seed: seed, people: 6, days: 14))
        let evaluation = GeotagEvaluation(simulation: simulation)
        #expect(evaluation.inPersonTimestamped > 50 && evaluation.inPersonDateOnly > 50, "\(evaluation)")
        #expect(evaluation.unmetGoals.isEmpty, "seed \(seed):\n\(evaluation)\n\(evaluation.mistakes.joined(separator: "\n"))")
    }

    @Test func theSimulationIsDeterministic() {
        let a = GeotagSimulator(stores: Self.places, configuration: .init(seed: 9, people: 2, days: 3))
        let b = GeotagSimulator(stores: Self.places, configuration: .init(seed: 9, people: 2, days: 3))
        #expect(a.people.map(\.expenses) == b.people.map(\.expenses))
        #expect(a.people.map(\.history) == b.people.map(\.history))
        let c = GeotagSimulator(stores: Self.places, configuration: .init(seed: 10, people: 2, days: 3))
        #expect(a.people.map(\.expenses) != c.people.map(\.expenses))
    }

    /// Wrong answers must fail the goals: every payment placed at the person's first fix.
    @Test func wrongAnswersFailTheGoals() throws {
        let simulation = GeotagSimulator(stores: Self.places, configuration: .init(seed: 1, people: 3, days: 7))
        var evaluation = GeotagEvaluation()
        for person in simulation.people {
            let home = try #require(person.history.positions.first).coordinate
            let decisions = person.expenses.map {
                GeotagDecision.placed(GeotagPlacement(id: $0.id, coordinate: home, accuracyMeters: 10, storeID: nil, confidence: 0.95, source: .history, evidence: ""))
            }
            evaluation.add(GeotagReport(decisions), truth: person.truth)
        }
        #expect(!evaluation.unmetGoals.isEmpty)
        #expect(evaluation.onlinePlaced > 0 && evaluation.precision < 0.5)
    }
}
