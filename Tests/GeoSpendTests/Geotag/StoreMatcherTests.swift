import GeoSpend
import Testing

@Suite struct StoreMatcherTests {
    static func store(_ id: String, _ name: String, _ lat: Double, _ lon: Double, brand: String? = nil, street: String? = nil, postcode: String? = nil) -> Store {
        Store(id: id, name: name, brand: brand, street: street, postcode: postcode, city: "Helsinki", coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon))
    }
    static let stores = [
        store("k1", "K-Market Kamppi", 60.1690, 24.9320, street: "Urho Kekkosen katu 1", postcode: "00100"),
        store("k2", "K-Market Esplanadi", 60.1675, 24.9480, postcode: "00130"),
        store("k3", "K Market Lönnrotinkatu", 60.1650, 24.9350),
        store("s1", "K-Supermarket Kaisaniemi", 60.1710, 24.9450),
        store("l1", "Lidl", 60.1700, 24.9400),
        store("b1", "Hesburger", 60.1680, 24.9400, brand: "Hesburger"),
        store("c1", "Café Ekberg", 60.1640, 24.9390),
    ]
    let matcher = StoreMatcher(stores: stores)

    func ids(_ text: String) -> [String] { matcher.candidates(for: MerchantDescriptor(parsing: text)).map(\.store.id) }

    @Test func theBranchWordPicksTheBranch() {
        #expect(ids("K-MARKET KAMPPI HELSINKI FI") == ["k1"])
        #expect(ids("KMARKET ESPLANADI") == ["k2"])
    }

    @Test func aChainWithoutItsBranchWordMatchesEveryBranch() {
        #expect(Set(ids("K-MARKET")) == ["k1", "k2", "k3"])
    }

    @Test func truncatedAndAccentlessNamesMatch() {
        #expect(ids("K-SUPERMARKET KAISANIE") == ["s1"])
        #expect(ids("CAFE EKBERG HELSINKI") == ["c1"])
        #expect(ids("SUMUP *LIDL") == ["l1"])
    }

    @Test func thePostcodeNamesTheBranch() {
        #expect(ids("K-MARKET 00130 HELSINKI") == ["k2"])
    }

    @Test func unrelatedNamesDoNotMatch() {
        #expect(ids("KAHVILA SUOMI").isEmpty)
        #expect(ids("LIDO BAR").isEmpty)
    }

    @Test func anotherCityLowersTheScore() {
        #expect(ids("LIDL TAMPERE FI").isEmpty)
    }
}
