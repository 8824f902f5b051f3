import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where webhooks may point (issue 39): not at this machine or the network it sits in, so a
/// user cannot make the service probe internal hosts. Loopback, private (RFC 1918, fc00::/7),
/// link-local, carrier-grade NAT, unspecified, multicast and reserved addresses are refused
/// unless the operator allows them (`geospend serve --allow-private-webhooks`). A host name is
/// resolved and every address it has must be public. The check runs before each attempt; a
/// name that resolves elsewhere between the check and the connection (DNS rebinding) is not
/// caught: docs/NOTIFICATIONS.md says so.
public enum WebhookAddressPolicy {
    /// nil when `url` may be delivered to; else why not.
    public static func refusal(_ url: String, allowPrivate: Bool) -> String? {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = c.host, !host.isEmpty
        else { return "not an http(s) URL with a host" }
        if allowPrivate { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let addresses = resolve(host)
        guard !addresses.isEmpty else { return nil }  // the attempt fails to connect and is retried
        for a in addresses where isPrivate(a) {
            return "\(host) is \(a.text), a loopback, private or reserved address; the operator may allow it with `geospend serve --allow-private-webhooks`"
        }
        return nil
    }

    /// An address as bytes (4 or 16) and as text.
    public struct Address: Sendable, Hashable {
        public let bytes: [UInt8]
        public var text: String {
            if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        }
        public init(bytes: [UInt8]) { self.bytes = bytes }
    }

    public static func isPrivate(_ a: Address) -> Bool {
        let b = a.bytes
        if b.count == 4 {
            switch (b[0], b[1]) {
            case (0, _), (10, _), (127, _): return true
            case (100, 64...127): return true  // carrier-grade NAT
            case (169, 254), (192, 168): return true
            case (172, 16...31): return true
            case (192, 0) where b[2] == 0 || b[2] == 2: return true
            case (198, 18...19): return true
            case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return true
            case (224...255, _): return true  // multicast, reserved, broadcast
            default: return false
            }
        }
        guard b.count == 16 else { return true }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {  // IPv4-mapped
            return isPrivate(Address(bytes: Array(b[12..<16])))
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) && (b[15] == 0 || b[15] == 1) { return true }  // :: and ::1
        if b[0] & 0xFE == 0xFC { return true }  // unique local fc00::/7
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return true }  // link-local fe80::/10
        if b[0] == 0xFF { return true }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return true }  // documentation
        return false
    }

    /// Every address `host` resolves to (an IP literal: itself).
    static func resolve(_ host: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let info = p {
            if let sa = info.pointee.ai_addr {
                if info.pointee.ai_family == AF_INET {
                    sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                        var a = sin.pointee.sin_addr
                        addresses.append(Address(bytes: withUnsafeBytes(of: &a) { Array($0) }))
                    }
                } else if info.pointee.ai_family == AF_INET6 {
                    sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                        var a = sin.pointee.sin6_addr
                        addresses.append(Address(bytes: withUnsafeBytes(of: &a) { Array($0) }))
                    }
                }
            }
            p = info.pointee.ai_next
        }
        return Array(Set(addresses))
    }
}
