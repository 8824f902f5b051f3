import GeoSpend
import Testing

/// Descriptors as banks print them (shapes from real statements; names from the Helsinki places).
@Suite struct MerchantDescriptorTests {
    @Test(arguments: [
        // text, name, city, country, processor
        ("SUMUP  *CAFE REGATTA HELSINKI FI", "CAFE REGATTA", "HELSINKI", "FI", "sumup"),
        ("IZ *KAHVILA SUOMI", "KAHVILA SUOMI", nil, nil, "zettle"),
        ("ZETTLE_*Fafa's Kamppi", "FAFA'S KAMPPI", nil, nil, "zettle"),
        ("SQ *BLUE BOTTLE COFFEE", "BLUE BOTTLE COFFEE", nil, nil, "square"),
        ("K-Market Kamppi Helsinki", "K-MARKET KAMPPI", "HELSINKI", nil, nil),
        ("KORTTIOSTO 12.03 ALEPA KLUUVI HELSINKI FI", "ALEPA KLUUVI", "HELSINKI", "FI", nil),
        ("Café Ekberg Helsinki FIN", "CAFE EKBERG", "HELSINKI", "FI", nil),
        ("S-MARKET SOKOS HELSINK", "S-MARKET SOKOS", "HELSINKI", nil, nil),
        ("ESPRESSO HOUSE XXXX4821", "ESPRESSO HOUSE", nil, nil, nil),
        ("LIDL 2026-03-05 14:32", "LIDL", nil, nil, nil),
        ("Stockmann 00100 Helsinki", "STOCKMANN", "HELSINKI", nil, nil),
    ] as [(String, String, String?, String?, String?)])
    func takesTheDescriptorApart(text: String, name: String, city: String?, country: String?, processor: String?) {
        let d = MerchantDescriptor(parsing: text)
        #expect(d.name == name, "\(text)")
        #expect(d.city == city, "\(text)")
        #expect(d.country == country, "\(text)")
        #expect(d.processor?.rawValue == processor, "\(text)")
        #expect(!d.isOnline, "\(text): \(d.onlineReason ?? "")")
    }

    @Test(arguments: [
        "NETFLIX.COM", "SPOTIFY P2B1C3D4E5", "APPLE.COM/BILL", "AMZN MKTP DE*AB12CD", "WOLT HELSINKI FI", "PAYPAL *EBAY",
        "KLARNA*ZALANDO", "UBER *TRIP", "BOLT.EU/O/2603041", "STEAMGAMES.COM 4259522", "WWW.KIRJAKAUPPA-VERKKO.FI",
        "Google *YouTube Premium", "PAYPAL *MUSICSHOP", "STRIPE*TEEPUBLIC", "foodora helsinki", "HBO MAX",
    ])
    func onlineIsRecognised(text: String) {
        let d = MerchantDescriptor(parsing: text)
        #expect(d.isOnline, "\(text) → \(d.name)")
    }

    @Test(arguments: ["TORIKAHVILA", "SQUARE ONE", "BOLTSI BAR", "UBERTI RISTORANTE", "APPLE CAFE"])
    func lookalikesAreNotOnline(text: String) {
        #expect(!MerchantDescriptor(parsing: text).isOnline, "\(text)")
    }

    @Test func truncationIsNoted() {
        #expect(MerchantDescriptor(parsing: "K-SUPERMARKET KAISANIE").mayBeTruncated)  // 22 characters
        #expect(!MerchantDescriptor(parsing: "LIDL").mayBeTruncated)
    }

    @Test func foldKeepsLettersAndDigits() {
        #expect(MerchantDescriptor.fold("K-Market Lönnrotinkatu") == "k market lonnrotinkatu")
        #expect(MerchantDescriptor.fold("McDonald's") == "mcdonalds")
    }

    @Test func monthlySeriesAreFound() {
        func p(_ id: String, _ key: String, _ amount: Int64, _ date: String) -> RecurringPayments.Payment {
            .init(id: id, merchantKey: key, amountMinorUnits: amount, currency: "EUR", localDate: date)
        }
        let payments = [
            p("a1", "gym club", 3900, "2026-01-04"), p("a2", "gym club", 3900, "2026-02-04"), p("a3", "gym club", 3900, "2026-03-04"),
            p("b1", "lidl", 1234, "2026-01-04"), p("b2", "lidl", 2345, "2026-02-04"), p("b3", "lidl", 3456, "2026-03-04"),
            p("c1", "cafe", 450, "2026-01-04"), p("c2", "cafe", 450, "2026-06-04"), p("c3", "cafe", 450, "2026-11-04"),
        ]
        #expect(RecurringPayments.monthlyIDs(in: payments) == ["a1", "a2", "a3"])
    }
}
