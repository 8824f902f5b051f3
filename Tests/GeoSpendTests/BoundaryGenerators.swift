import Foundation
import PropertyBased

@testable import GeoSpend

/// A generator that mixes others (`Gen.frequency`), shrinking within the one that was chosen.
typealias MixedGenerator<T> = Generator<T, AnySequence<(index: Int, value: Any)>>

/// Generators for property tests that hit the edges on purpose: a random value finds the
/// common case, a boundary value (±90, ±180, 0, the largest amount …) the rare one that breaks.
enum Boundary {
    /// One of `values`, shrinking towards the first.
    static func pick<T: Sendable>(_ values: [T]) -> Generator<T, AnySequence<Any>> {
        Gen.int(in: 0...(values.count - 1)).map { values[$0] }.eraseToAny()
    }

    /// A value from `boundaries` one time in four, else uniform in `range`.
    static func double(_ range: ClosedRange<Double>, boundaries: [Double]) -> MixedGenerator<Double> {
        Gen<Double>.frequency([(weight: 1, gen: pick(boundaries)), (weight: 3, gen: Gen.double(in: range).eraseToAny())])
    }

    static let latitude = double(-90...90, boundaries: [-90, 90, 0, -89.999_999_9, 89.999_999_9, 1e-9, -1e-9, 45, -45])
    static let longitude = double(
        -180...180, boundaries: [-180, 180, 0, -179.999_999_9, 179.999_999_9, 1e-9, -1e-9, 90, -90])

    static let coordinate = zip(latitude, longitude).map { Coordinate(uncheckedLatitude: $0, longitude: $1) }

    /// Radii in metres from a millimetre to beyond half the Earth's circumference, log-uniform,
    /// with the awkward ones: 1 mm, pole to pole (20,003,931 m), and just below and above.
    static let radius: MixedGenerator<Double> = Gen<Double>.frequency([
        (weight: 1, gen: pick([1e-3, 1, 500, 10_001_965.7, 19_999_999, 20_000_000, 20_003_931.4, 20_003_932, 25_000_000])),
        (weight: 3, gen: Gen.double(in: -3...7.31).map { pow(10, $0) }.eraseToAny()),
    ])

    static let currency = pick(["EUR", "JPY", "KWD", "CLF", "USD", "BHD", "ISK"].map { try! Currency(code: $0) })

    /// Positive amounts in minor units, up to `Money.maximumMinorUnits`, small ones most often.
    static let minorUnits: MixedGenerator<Int64> = Gen<Int64>.frequency([
        (weight: 1, gen: pick([1, 9, 10, 99, 100, 101, 999, 1_000, Money.maximumMinorUnits - 1, Money.maximumMinorUnits])),
        (weight: 2, gen: Gen.int64(in: 1...100_000).eraseToAny()),
        (weight: 1, gen: Gen.int64(in: 1...Money.maximumMinorUnits).eraseToAny()),
    ])
}
