import Foundation
import Testing

@testable import GeoSpend

/// Receipt text as OCR reads a photo (issue 42): every line shape `ReceiptScan` reads, and the
/// self-checks that decide `ok`: above all, a receipt whose total is wrong is never `ok`.
@Suite struct ReceiptScanTests {
    static let eur = try! Currency(code: "EUR")

    static let german = """
        Frischmarkt Hoffmann
        Hauptstraße 12
        10115 Berlin
        Tel. 030 4471230

        Joghurt Natur              1,98 A
          2 x 0,99
        Bananen                    1,53 A
          0,512 kg x 2,99 EUR/kg
        Pfand                      0,25 A
        Leergut                   -0,75 A
        Zahnpasta                  2,45 B
        --------------------------------
        SUMME EUR                  5,46
        Bar                       10,00
        Rückgeld                   4,54

        MwSt     Netto     MwSt     Brutto
        A 7%      2,82     0,19       3,01
        B 19%     2,06     0,39       2,45

        16.12.2024 15:53          Bon 1234
        """

    @Test func germanReceiptIsReadAndOK() throws {
        let s = ReceiptScan.read(Self.german, currency: Self.eur)
        #expect(s.problems == [])
        #expect(s.status == .ok)
        #expect(s.header.name == "Frischmarkt Hoffmann")
        #expect(s.header.street == "Hauptstraße 12")
        #expect(s.header.postcode == "10115")
        #expect(s.header.city == "Berlin")
        #expect(s.header.phone == "030 4471230")
        #expect(s.date == "2024-12-16")
        #expect(s.time == "15:53")
        #expect(s.items.map(\.name) == ["Joghurt Natur", "Bananen", "Pfand", "Leergut", "Zahnpasta"])
        #expect(s.items.map(\.quantity) == [2, 512, 1, 1, 1])
        #expect(s.items.map(\.unit) == ["pcs", "kg", "pcs", "pcs", "pcs"])
        #expect(s.items.map(\.priceMinor) == [198, 153, 25, -75, 245])
        #expect(s.items.map(\.vat) == ["A", "A", "A", "A", "B"])
        #expect(s.totalMinor == 546)
        #expect(s.paidMinor == 546)
        #expect(s.vatRows.map(\.rateHundredths) == [700, 1900])
    }

    @Test func finnishAndEnglishShapes() throws {
        let fi = """
            Lähikauppa Aalto
            Mannerheimintie 45
            00250 Helsinki
            Maito 1l             1,15 A
            Alennus              0,10- A
            YHTEENSÄ             1,05
            Pankkikortti         1,05
            ALV  Veroton  Vero  Verollinen
            A 14%    0,92   0,13      1,05
            3.2.2025 klo 09.05
            """
        let f = ReceiptScan.read(fi, currency: Self.eur)
        #expect(f.problems == [])
        #expect(f.items.map(\.priceMinor) == [115, -10])
        #expect(f.date == "2025-02-03")
        #expect(f.time == "09:05")
        #expect(f.header.postcode == "00250")
        let en = """
            Corner Grocer
            12 High Street
            London SW1A 1AA
            2x Flat White        6.40
            TOTAL                6.40
            CARD                 6.40
            16/12/24 15:53
            """
        let e = ReceiptScan.read(en, currency: Self.eur)
        #expect(e.problems == [])
        #expect(e.currency.code == "EUR")
        #expect(e.items.first?.quantity == 2)
        #expect(e.items.first?.name == "Flat White")
        #expect(e.date == "2024-12-16")
        #expect(e.header.postcode == "SW1A 1AA")
        #expect(e.header.city == "London")
        #expect(ReceiptScan.read("Shop\nTea £2.50\nTOTAL £2.50\nCASH £5.00\nCHANGE £2.50", currency: Self.eur).currency.code == "GBP")
    }

    @Test(arguments: [
        ("16.12.2024", "2024-12-16"), ("16.12.24", "2024-12-16"), ("2024-12-16", "2024-12-16"),
        ("16/12/24", "2024-12-16"), ("3.2.2025", "2025-02-03"), ("29.02.2024", "2024-02-29"),
    ])
    func dates(text: String, expected: String) {
        #expect(ReceiptScan.date(text) == expected)
    }

    @Test(arguments: ["29.02.2023", "32.01.2024", "16.13.2024", "1,29", "12.50", "2024-1-16", "16/12", "0,512"])
    func notDates(text: String) {
        #expect(ReceiptScan.date(text) == nil)
    }

    @Test func quantityAndWeightLines() {
        #expect(ReceiptScan.quantityLine(["2", "x", "0,99"], currency: Self.eur)! == (2, 99))
        #expect(ReceiptScan.quantityLine(["3x0,50"], currency: Self.eur)! == (3, 50))
        #expect(ReceiptScan.quantityLine(["2", "Stk", "x", "1,10"], currency: Self.eur)! == (2, 110))
        #expect(ReceiptScan.quantityLine(["Milch", "0,99"], currency: Self.eur) == nil)
        #expect(ReceiptScan.weightLine("0,512 kg x 2,99 EUR/kg", currency: Self.eur)! == (512, 299))
        #expect(ReceiptScan.weightLine("1.250 kg x 3.49 GBP/kg", currency: Self.eur)! == (1250, 349))
        #expect(ReceiptScan.weightLine("0,512 kg Bananen", currency: Self.eur) == nil)
        #expect(ReceiptScan.amount("0,20-", currency: Self.eur) == -20)
        #expect(ReceiptScan.amount("-0,20", currency: Self.eur) == -20)
        #expect(ReceiptScan.amount("€3.10", currency: Self.eur) == 310)
    }

    /// The one failure that must never happen: every single-digit change of the total (as OCR
    /// misreads a 3 for an 8) leaves the receipt `needs_review`.
    @Test func wrongTotalIsNeverOK() {
        let lines = Self.german.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let totalIndex = lines.firstIndex { $0.hasPrefix("SUMME") }!
        var tried = 0
        for position in [0, 2, 3] {
            for digit in "0123456789" {
                var total = Array("5,46")
                if total[position] == digit { continue }
                total[position] = digit
                var changed = lines
                changed[totalIndex] = "SUMME EUR                  " + String(total)
                let s = ReceiptScan.read(changed.joined(separator: "\n"), currency: Self.eur)
                #expect(s.status == .needsReview, "total \(String(total))")
                #expect(s.problems.contains { $0.contains("not the total") })
                tried += 1
            }
        }
        #expect(tried == 27)
        // The total and the payment misread alike: the items and the VAT table still disagree.
        let misread = Self.german.replacingOccurrences(of: "5,46", with: "5,48").replacingOccurrences(of: "4,54", with: "4,52")
        let s = ReceiptScan.read(misread, currency: Self.eur)
        #expect(s.paidMinor == 548)
        #expect(s.status == .needsReview)
    }

    @Test func eachSelfCheckHasItsProblem() {
        func problems(_ from: String, _ to: String) -> [String] {
            ReceiptScan.read(Self.german.replacingOccurrences(of: from, with: to), currency: Self.eur).problems
        }
        #expect(problems("Rückgeld                   4,54", "Rückgeld                   4,55").contains { $0.hasPrefix("paid 5.45, not the total 5.46") })
        #expect(problems("Bar                       10,00\n", "").contains { $0.hasPrefix("no payment line") })
        #expect(problems("B 19%     2,06     0,39", "B 19%     2,07     0,39").contains { $0.contains("is not the gross") })
        #expect(problems("B 19%     2,06     0,39", "B 19%     2,16     0,29").contains { $0.contains("is not 19.00% of") })
        #expect(problems("2 x 0,99", "2 x 0,98").contains { $0.contains("is 1.96, not the item's 1.98") })
        #expect(problems("A 7%      2,82     0,19       3,01\n", "").contains { $0.contains("gross amounts add up to 2.45, not the total 5.46") })
        let noRows = ReceiptScan.read(
            Self.german.replacingOccurrences(of: "A 7%      2,82     0,19       3,01\n", with: "")
                .replacingOccurrences(of: "B 19%     2,06     0,39       2,45\n", with: ""), currency: Self.eur)
        #expect(noRows.problems == ["a VAT table is printed but none of its rows was read"])
        #expect(ReceiptScan.read("nothing here", currency: Self.eur).status == .needsReview)
    }

    /// A single misread digit is put right only when the other amounts fix it, never the total.
    @Test func repairsOneMisreadDigitFromTheOtherAmounts() {
        // `Zahnpasta 2,45` read as `2,46`: total, cash less change and the VAT table agree on
        // 5,46, and only the B group is off.
        let item = ReceiptScan.read(Self.german.replacingOccurrences(of: "Zahnpasta                  2,45", with: "Zahnpasta                  2,46"), currency: Self.eur)
        #expect(item.problems == [])
        #expect(item.items.last?.priceMinor == 245)
        #expect(item.corrections.count == 1)
        // The tax of a VAT row.
        let tax = ReceiptScan.read(Self.german.replacingOccurrences(of: "0,39       2,45", with: "0,89       2,45"), currency: Self.eur)
        #expect(tax.problems == [])
        #expect(tax.vatRows.last?.taxMinor == 39)
        // `Joghurt 1,98` read as `1,99`: its quantity line says 2 × 0,99, so it is put right; read
        // as `1,08` the quantity line disagrees and nothing is.
        #expect(ReceiptScan.read(Self.german.replacingOccurrences(of: "Natur              1,98", with: "Natur              1,99"), currency: Self.eur).problems == [])
        let two = ReceiptScan.read(
            Self.german.replacingOccurrences(of: "Natur              1,98", with: "Natur              1,99")
                .replacingOccurrences(of: "2 x 0,99", with: "2 x 0,90"), currency: Self.eur)
        #expect(two.status == .needsReview)
        #expect(two.corrections == [])
        // Two digits off: not a single misread, left for review.
        let far = ReceiptScan.read(Self.german.replacingOccurrences(of: "Zahnpasta                  2,45", with: "Zahnpasta                  3,46"), currency: Self.eur)
        #expect(far.status == .needsReview)
        #expect(far.corrections == [])
    }

    /// The header into the registry: diacritics and case aside, a like name elsewhere is not it.
    @Test func storeMatchesIntoTheRegistry() {
        let here = try! Coordinate(latitude: 52.5, longitude: 13.4)
        let registry = [
            Store(id: "cafe", name: "Café Sonnenschein", street: "Lindenallee 5", postcode: "04109", coordinate: here),
            Store(id: "decoy", name: "Café Sonnenscheis", street: "Andere Straße 1", postcode: "99999", coordinate: here),
            Store(id: "other", name: "Bäckerei Lindner", postcode: "80331", coordinate: here),
        ]
        let read = ReceiptScan.read("Cafe Sonnenschein\nLindenallee 5\n04109 Leipzig\nTee 2,00\nSUMME 2,00\nBar 2,00", currency: Self.eur)
        #expect(StoreMatch.best(for: read.header, among: registry)?.store.id == "cafe")
        var elsewhere = read.header
        elsewhere.street = nil
        elsewhere.postcode = "99999"
        #expect(StoreMatch.best(for: elsewhere, among: registry)?.store.id == "decoy")
        var unknown = read.header
        unknown.name = "Kiosk am Bahnhof"
        #expect(StoreMatch.best(for: unknown, among: registry) == nil)
        // Two stores alike in every way: neither.
        let twins = [registry[0], Store(id: "twin", name: "Café Sonnenschein", street: "Lindenallee 5", postcode: "04109", coordinate: here)]
        #expect(StoreMatch.best(for: read.header, among: twins) == nil)
    }

    /// `Zahnpasta 2,45 B` read as `Zahnpasta 245B`: the B group is short by exactly 2,45.
    @Test func restoresALostDecimalPoint() {
        let lost = ReceiptScan.read(Self.german.replacingOccurrences(of: "Zahnpasta                  2,45 B", with: "Zahnpasta                  245B"), currency: Self.eur)
        #expect(lost.problems == [])
        #expect(lost.items.last?.name == "Zahnpasta")
        #expect(lost.items.last?.priceMinor == 245)
        #expect(lost.corrections.count == 1)
        // Digits that are not the shortfall stay unread, and the receipt is for review.
        let other = ReceiptScan.read(Self.german.replacingOccurrences(of: "Zahnpasta                  2,45 B", with: "Zahnpasta                  246B"), currency: Self.eur)
        #expect(other.status == .needsReview)
        #expect(other.corrections == [])
    }

    /// The same for the first item, which is then taken for a header line at first.
    @Test func restoresALostDecimalPointInTheFirstItem() {
        let text = "Corner Grocer\n12 High Street\nTomatoes 112A\nEggs 6.52 A\nTOTAL £7.64\nCARD 7.64\nVAT Net VAT Gross\nA 0% 7.64 0.00 7.64\n"
        let s = ReceiptScan.read(text, currency: Self.eur)
        #expect(s.problems == [])
        #expect(s.items.map(\.name) == ["Tomatoes", "Eggs"])
        #expect(s.items.map(\.priceMinor) == [112, 652])
        #expect(s.header.street == "12 High Street")
    }
}
