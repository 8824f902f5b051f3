/// A payment processor or wallet whose mark banks print in front of the merchant's name
/// (`SUMUP *CAFE REGATTA`, `IZ *KAHVILA`, `SQ *BAKERY`, `PAYPAL *NETFLIX`). Knowing it tells
/// where the merchant's name starts, and whether the sale was likely made in person.
public enum PaymentProcessor: String, Sendable, Hashable, CaseIterable {
    case sumup, zettle, square, nets, paypal, stripe, adyen, klarna, vipps, mobilepay, applePay = "apple-pay", googlePay = "google-pay"

    /// Prefixes as printed, uppercase and without accents, longest first within a processor.
    /// Each is followed by `*`, `_`, a space or nothing before the merchant's name.
    static let prefixes: [(String, PaymentProcessor)] = [
        ("SUMUP", .sumup), ("SUM UP", .sumup),
        ("IZETTLE", .zettle), ("ZETTLE", .zettle), ("IZ", .zettle),
        ("SQUARE", .square), ("SQU", .square), ("SQ", .square),
        ("NETS", .nets),
        ("PAYPAL", .paypal), ("PP", .paypal),
        ("STRIPE", .stripe), ("STR", .stripe),
        ("ADYEN", .adyen), ("ADY", .adyen),
        ("KLARNA", .klarna), ("KLA", .klarna),
        ("VIPPS", .vipps), ("MOBILEPAY", .mobilepay),
        ("APPLE PAY", .applePay), ("GOOGLE PAY", .googlePay), ("GPAY", .googlePay),
    ]

    /// Whether payments through it are usually online: PayPal, Stripe, Klarna and Adyen mostly
    /// take web payments, so a descriptor with their mark is treated as online unless its
    /// merchant is a known shop. SumUp, Zettle, Square and Nets run card terminals.
    public var isMostlyOnline: Bool {
        switch self {
        case .paypal, .stripe, .klarna, .adyen: return true
        default: return false
        }
    }
}
