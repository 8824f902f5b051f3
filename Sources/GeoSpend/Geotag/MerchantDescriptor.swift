import Foundation

/// What a bank printed for a card payment, taken apart: the merchant's name, city, country,
/// the processor, and whether the payment was online.
///
/// Banks print a card network's merchant descriptor (ISO 8583 field 43: 22–25 characters of
/// name, then a city and a country), often with a processor's mark in front, card or terminal
/// numbers and a date around it, upper-cased and with accents stripped:
///
/// ```swift
/// let d = MerchantDescriptor(parsing: "SUMUP  *CAFE REGATTA HELSINKI FI")
/// d.name       // "CAFE REGATTA"
/// d.city       // "HELSINKI"
/// d.country    // "FI"
/// d.processor  // .sumup
/// d.isOnline   // false
/// ```
public struct MerchantDescriptor: Sendable, Hashable {
    /// The text as given.
    public let text: String
    /// The merchant's name as printed (upper case, accents stripped), without processor mark,
    /// numbers, dates, city and country.
    public let name: String
    /// The city named at the end, if one was recognised.
    public let city: String?
    /// An ISO 3166-1 alpha-2 code, if the text ends with a country code.
    public let country: String?
    public let processor: PaymentProcessor?
    /// The online verdict: never place such a payment on the map.
    public let isOnline: Bool
    /// Why it is online (`domain`, a known merchant, the processor), for the evidence text.
    public let onlineReason: String?
    /// The name may have been cut (the descriptor is as long as the field it was printed in).
    public let mayBeTruncated: Bool

    /// `name` folded for matching: lower case, letters and digits only, words kept apart by
    /// one space (`"k market kamppi"`).
    public var matchKey: String { MerchantDescriptor.fold(name) }

    /// Parses a bank's merchant text. Never fails: text it cannot read becomes the name.
    /// - Complexity: O(n) in the text's length.
    public init(parsing input: String) {
        text = input
        var s = MerchantDescriptor.upperASCII(input)
        // Wrapper words banks add around the descriptor.
        for noise in MerchantDescriptor.bankWords {
            if s.hasPrefix(noise + " ") { s.removeFirst(noise.count + 1) }
        }
        var processor: PaymentProcessor?
        var trimmed = s.drop { $0 == " " }
        for (prefix, p) in PaymentProcessor.prefixes where trimmed.hasPrefix(prefix) {
            let rest = trimmed.dropFirst(prefix.count)
            // A mark is followed by '*', '_' or ' *'; a bare "SQ" word is a name ("SQUARE ONE").
            let afterSpaces = rest.drop { $0 == " " }
            if let f = afterSpaces.first, f == "*" || f == "_" {
                processor = p
                trimmed = afterSpaces.dropFirst().drop { $0 == " " }
                break
            }
            if ["SUMUP", "IZETTLE", "ZETTLE", "PAYPAL", "KLARNA", "STRIPE", "ADYEN"].contains(prefix), rest.first == " " {
                processor = p
                trimmed = afterSpaces
                break
            }
        }
        var original = String(trimmed)
        let mayBeTruncated = (22...25).contains(input.count) || (22...25).contains(original.count)
        // Domains before the punctuation is flattened.
        var onlineReason: String?
        if let domain = MerchantDescriptor.domain(in: original) { onlineReason = "domain \(domain.lowercased())" }
        original = original.replacingOccurrences(of: "*", with: " ").replacingOccurrences(of: "_", with: " ")
        var words = original.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "/" || $0 == "#" }).map(String.init)
        // Card and terminal numbers, masked card numbers, dates and times anywhere.
        words.removeAll { MerchantDescriptor.isNumberOrDate($0) }
        if let last = words.last, words.count >= 1, last.count >= 4, last.allSatisfy({ $0 == "X" || $0.isNumber }) { words.removeLast() }
        while let last = words.last, ["CARD", "KORTTI", "TERM", "TERMINAL", "REF", "POS"].contains(last) { words.removeLast() }
        var country: String?
        if words.count >= 2, let last = words.last, let code = MerchantDescriptor.countries[last] {
            country = code
            words.removeLast()
        }
        var city: String?
        if words.count >= 2, let last = words.last {
            if MerchantDescriptor.cities.contains(last) {
                city = last
                words.removeLast()
            } else if last.count >= 4, let full = MerchantDescriptor.cities.first(where: { $0.hasPrefix(last) }), mayBeTruncated {
                city = full
                words.removeLast()
            }
        }
        if country == nil, city == nil, words.count >= 2, let last = words.last, last.count == 2,
            let code = MerchantDescriptor.countries[last]
        {
            country = code
            words.removeLast()
        }
        let name = words.joined(separator: " ")
        self.name = name.isEmpty ? String(trimmed) : name
        self.city = city
        self.country = country
        self.processor = processor
        self.mayBeTruncated = mayBeTruncated
        if onlineReason == nil, let known = MerchantDescriptor.onlineMerchant(MerchantDescriptor.fold(self.name)) {
            onlineReason = known
        }
        if onlineReason == nil, let processor, processor.isMostlyOnline { onlineReason = "paid through \(processor.rawValue)" }
        self.onlineReason = onlineReason
        self.isOnline = onlineReason != nil
    }

    /// Upper case, accents stripped (`Ä` → `A`), runs of spaces made one.
    static func upperASCII(_ s: String) -> String {
        let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
        var out = ""
        var space = false
        for ch in folded {
            if ch == " " || ch == "\t" {
                if !space && !out.isEmpty { out.append(" ") }
                space = true
            } else {
                out.append(ch)
                space = false
            }
        }
        while out.last == " " { out.removeLast() }
        return out
    }

    /// Lower case ASCII letters and digits, other characters as word breaks, accents stripped:
    /// the form names are compared in (`"K-Market Kamppi"` → `"k market kamppi"`).
    public static func fold(_ s: String) -> String {
        let folded = s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var out = ""
        var pendingSpace = false
        for u in folded.unicodeScalars {
            if (u >= "a" && u <= "z") || (u >= "0" && u <= "9") {
                if pendingSpace && !out.isEmpty { out.append(" ") }
                pendingSpace = false
                out.unicodeScalars.append(u)
            } else if u == "'" || u == "’" {
                continue  // "McDonald's" → "mcdonalds"
            } else {
                pendingSpace = true
            }
        }
        return out
    }

    static func isNumberOrDate(_ w: String) -> Bool {
        let digits = w.filter(\.isNumber).count
        guard digits > 0 else { return false }
        // 1234, 123456789, XXXX1234, *1234, 12.03., 12.03.2026, 2026-03-12, 14:32, 12/03
        if w.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "/" || $0 == "X" || $0 == "*" }) {
            return digits >= 2 || w.allSatisfy(\.isNumber)
        }
        return false
    }

    /// A web domain in the text (`NETFLIX.COM`, `WWW.VERKKOKAUPPA.COM`, `AMZN.COM/BILL`).
    static func domain(in s: String) -> String? {
        for w in s.split(whereSeparator: { $0 == " " || $0 == "*" }) {
            let parts = w.split(separator: "/").first.map { $0.split(separator: ".") } ?? []
            guard parts.count >= 2, let tld = parts.last, MerchantDescriptor.topLevelDomains.contains(String(tld)),
                parts.dropLast().allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }),
                parts.dropLast().contains(where: { $0.contains(where: \.isLetter) })
            else { continue }
            return String(w)
        }
        return nil
    }

    /// Why a folded name is a known online merchant, if it is one.
    static func onlineMerchant(_ key: String) -> String? {
        // Whole words only: "tori" is a marketplace, "torikahvila" a café. Names of five
        // letters or more count anywhere ("SUBSCR SPOTIFY"), shorter ones only first.
        let padded = " " + key + " "
        for (name, kind) in MerchantDescriptor.onlineMerchants
        where key == name || key.hasPrefix(name + " ") || (name.count >= 5 && padded.contains(" " + name + " ")) {
            return "\(kind) (\(name))"
        }
        for word in key.split(separator: " ") where MerchantDescriptor.subscriptionWords.contains(String(word)) {
            return "subscription (\(word))"
        }
        return nil
    }

    /// Words banks and merchants print on recurring charges.
    static let subscriptionWords: Set<String> = ["subscr", "subscription", "subs", "tilaus", "kuukausitilaus", "abo", "abonnement", "membership", "recurring", "renewal"]

    static let bankWords = ["KORTTIOSTO", "KORTTIMAKSU", "CARD PURCHASE", "CARD PAYMENT", "DEBIT CARD", "VISA DEBIT", "VISA", "MASTERCARD", "POS", "PURCHASE", "OSTO", "KARTENZAHLUNG", "KORTKOP"]

    static let topLevelDomains: Set<String> = ["COM", "FI", "NET", "ORG", "IO", "DE", "SE", "UK", "EU", "CO", "APP", "TV", "SHOP", "STORE", "NL", "FR", "ES", "IT", "EE", "NO", "DK", "AI"]

    /// Merchants that sell only online, as banks print them (folded), and what they are.
    static let onlineMerchants: [(String, String)] = [
        ("netflix", "subscription"), ("spotify", "subscription"), ("hbo", "subscription"), ("disney plus", "subscription"),
        ("disney", "subscription"), ("youtube", "subscription"), ("patreon", "subscription"), ("dropbox", "subscription"),
        ("adobe", "subscription"), ("microsoft", "subscription"), ("openai", "subscription"), ("audible", "subscription"),
        ("storytel", "subscription"), ("bookbeat", "subscription"), ("elisa viihde", "subscription"), ("viaplay", "subscription"),
        ("apple com", "app store"), ("apple bill", "app store"), ("itunes", "app store"), ("google play", "app store"),
        ("google", "app store"), ("steam", "app store"), ("steamgames", "app store"), ("playstation", "app store"), ("xbox", "app store"),
        ("amazon", "web shop"), ("amzn", "web shop"), ("ebay", "marketplace"), ("aliexpress", "marketplace"), ("etsy", "marketplace"),
        ("zalando", "web shop"), ("verkkokauppa com", "web shop"), ("temu", "marketplace"), ("shein", "web shop"), ("tori", "marketplace"),
        ("wolt", "delivery app"), ("foodora", "delivery app"), ("uber eats", "delivery app"), ("uber", "ride app"), ("bolt", "ride app"),
        ("lyft", "ride app"), ("airbnb", "booking site"), ("booking com", "booking site"), ("finnair com", "web shop"),
        ("vr fi", "web shop"), ("hsl mobiili", "ticket app"), ("hsl app", "ticket app"),
    ]

    /// Countries as banks print them: alpha-2 and alpha-3 codes of the ones GeoSpend's users
    /// meet most (Nordics, Baltics, western Europe, the US).
    static let countries: [String: String] = [
        "FI": "FI", "FIN": "FI", "SE": "SE", "SWE": "SE", "NO": "NO", "NOR": "NO", "DK": "DK", "DNK": "DK",
        "EE": "EE", "EST": "EE", "DE": "DE", "DEU": "DE", "NL": "NL", "NLD": "NL", "IE": "IE", "IRL": "IE",
        "GB": "GB", "GBR": "GB", "UK": "GB", "US": "US", "USA": "US", "LU": "LU", "LUX": "LU", "FR": "FR", "FRA": "FR",
        "ES": "ES", "ESP": "ES", "IT": "IT", "ITA": "IT", "LV": "LV", "LVA": "LV", "LT": "LT", "LTU": "LT", "PL": "PL", "POL": "PL",
    ]

    /// Cities printed at the end of descriptors (upper case, no accents); a truncated one is
    /// recognised by its first four letters or more.
    static let cities: [String] = [
        "HELSINKI", "HELSINGFORS", "ESPOO", "VANTAA", "KAUNIAINEN", "TAMPERE", "TURKU", "OULU", "JYVASKYLA", "LAHTI", "KUOPIO",
        "STOCKHOLM", "GOTEBORG", "OSLO", "KOBENHAVN", "COPENHAGEN", "TALLINN", "BERLIN", "MUNCHEN", "HAMBURG", "AMSTERDAM",
        "DUBLIN", "LONDON", "LUXEMBOURG", "PARIS", "MADRID", "ROMA", "RIGA", "VILNIUS", "WARSZAWA",
    ]
}
