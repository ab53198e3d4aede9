#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as 16 bytes (IPv4 as its IPv4-mapped IPv6 form, `::ffff:a.b.c.d`), so one range check
/// covers both families.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network order; IPv4 addresses are IPv4-mapped.
    public let bytes: [UInt8]

    /// An address from its 16 network-order bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An IPv4 address from its four bytes.
    public init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        self.bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, a, b, c, d]
    }

    /// Parses a literal: dotted IPv4 (`10.0.0.1`) or IPv6 (`::1`, `fe80::1`, with or without brackets).
    public init?(_ text: String) {
        var literal = Substring(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(literal), &v4) == 1 {
            self = withUnsafeBytes(of: &v4) { IPAddress(ipv4: $0[0], $0[1], $0[2], $0[3]) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, String(literal), &v6) == 1 else { return nil }
        self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    /// `true` for an IPv4 address (an IPv4-mapped one).
    public var isIPv4: Bool { bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF }

    public var description: String {
        if isIPv4 { return bytes[12...].map(String.init).joined(separator: ".") }
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The text for a URL's host: IPv6 in brackets.
    public var urlHost: String { isIPv4 ? description : "[\(description)]" }
}

/// A range of addresses: a prefix length over `IPAddress`'s 16 bytes (IPv4 ranges are offset by 96 bits).
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    public let base: IPAddress
    /// Leading bits that must match, 0...128, counted over the 16-byte form.
    public let prefixLength: Int

    /// A range from its base and the prefix length as written for its family (`/8` for IPv4 means 96 + 8).
    public init(_ base: IPAddress, prefix: Int) {
        self.base = base
        self.prefixLength = base.isIPv4 ? 96 + min(max(prefix, 0), 32) : min(max(prefix, 0), 128)
    }

    /// Parses `10.0.0.0/8`, `fc00::/7` or a single address (`127.0.0.1`, `::1`).
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let base = IPAddress(String(parts[0])) else { return nil }
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), prefix >= 0, prefix <= (base.isIPv4 ? 32 : 128) else { return nil }
            self.init(base, prefix: prefix)
        } else {
            self.init(base, prefix: base.isIPv4 ? 32 : 128)
        }
    }

    /// `true` when `address` lies in the range.
    /// - Complexity: O(1) (at most 16 bytes compared).
    public func contains(_ address: IPAddress) -> Bool {
        var remaining = prefixLength
        for index in 0..<16 where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if address.bytes[index] & mask != base.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String {
        "\(base)/\(base.isIPv4 ? prefixLength - 96 : prefixLength)"
    }
}
