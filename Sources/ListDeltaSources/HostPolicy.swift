public import Foundation
import TextFormats

/// Which hosts a source may reach: the guard that keeps a service that fetches URLs on request from being turned
/// against its own network.
///
/// Patterns (configuration `sourceHosts`):
/// - `public`: any host whose every resolved address is a public unicast address (the default);
/// - a host name, where `*` matches any run of characters (`feeds.example.com`, `*.example.com`): that name is
///   allowed whatever it resolves to (the operator vouches for it);
/// - an address or a range (`127.0.0.1`, `::1`, `10.0.0.0/8`): a host is allowed when every address it resolves
///   to lies in an allowed range or (with `public`) is public.
///
/// The check runs on the addresses a name resolved to, right before connecting, and again on every redirect.
public struct HostPolicy: Sendable, Equatable {
    /// Whether public addresses are allowed.
    public let allowsPublic: Bool
    /// Host-name patterns allowed by name, lowercased.
    public let namePatterns: [String]
    /// Address ranges allowed.
    public let ranges: [AddressRange]

    /// The default: public addresses only.
    public static let publicOnly = HostPolicy(allowsPublic: true, namePatterns: [], ranges: [])

    init(allowsPublic: Bool, namePatterns: [String], ranges: [AddressRange]) {
        self.allowsPublic = allowsPublic
        self.namePatterns = namePatterns
        self.ranges = ranges
    }

    /// Reads patterns. An empty list means `public`.
    /// - Throws: `HostPolicyError` naming the first pattern that is neither `public`, an address, a range nor a
    ///   host name.
    public init(patterns: [String]) throws(HostPolicyError) {
        var allowsPublic = false
        var names: [String] = []
        var ranges: [AddressRange] = []
        for raw in patterns {
            let pattern = raw.trimmingSpaces().lowercased()
            if pattern.isEmpty { continue }
            if pattern == "public" {
                allowsPublic = true
            } else if let range = AddressRange(pattern) {
                ranges.append(range)
            } else if pattern.utf8.allSatisfy({ Self.isNameByte($0) }), pattern.contains(where: { $0 != "*" && $0 != "." }) {
                names.append(pattern)
            } else {
                throw HostPolicyError(pattern: raw)
            }
        }
        if names.isEmpty, ranges.isEmpty { allowsPublic = true }
        self.init(allowsPublic: allowsPublic, namePatterns: names, ranges: ranges)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// `true` when the host name itself is allowed by a name pattern (then its addresses are not checked).
    /// - Complexity: O(*p* · *n* · *m*) for *p* patterns of length *m* and a name of length *n*, at worst.
    public func allowsByName(_ host: String) -> Bool {
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        return namePatterns.contains { Self.matches(Array(name.utf8), Array($0.utf8)) }
    }

    /// `true` when a connection to `address` is allowed for a host that no name pattern allows.
    public func allows(_ address: IPAddress) -> Bool {
        if ranges.contains(where: { $0.contains(address) }) { return true }
        return allowsPublic && NonPublicAddresses.isPublic(address)
    }

    /// Checks a host and the addresses it resolved to.
    /// - Throws: ``refusal(of:)`` when an address is refused or there is none.
    public func check(host: String, addresses: [IPAddress]) throws(SourceFetchError) {
        if allowsByName(host) { return }
        guard !addresses.isEmpty, addresses.allSatisfy(allows) else { throw Self.refusal(of: host) }
    }

    /// The one answer for every host a source may not reach, whether its name does not resolve (in time), resolves
    /// to no address, or resolves to an address the policy refuses: answering them apart would let whoever attaches
    /// sources learn which internal names exist, and where they point.
    public static func refusal(of host: String) -> SourceFetchError {
        SourceFetchError(
            .refusedHost,
            "\(host) is not a host sources may reach: it must resolve, in time, to addresses sourceHosts allows (loopback, private, link-local and metadata addresses are refused unless it allows them)")
    }

    /// Resolves `url`'s host within `timeoutSeconds` and checks it and its addresses: what a fetch does before it
    /// connects, and an attach before it takes a source.
    /// - Returns: The host without IPv6 brackets, and the addresses it resolved to (all allowed).
    /// - Throws: `SourceFetchError` when the URL has no host; ``refusal(of:)`` when the name does not resolve in
    ///   time or is refused (a name a pattern allows gets the resolver's own error).
    public func checkHost(
        of url: URL, resolver: any AddressResolving, timeoutSeconds: Double
    ) throws(SourceFetchError) -> (host: String, addresses: [IPAddress]) {
        guard let host = url.host, !host.isEmpty else { throw SourceFetchError(.invalidURL, "url has no host") }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [IPAddress]
        do {
            addresses = try resolver.resolve(bare, timeoutSeconds: timeoutSeconds)
        } catch where !allowsByName(bare) {
            throw Self.refusal(of: bare)
        }
        try check(host: bare, addresses: addresses)
        return (bare, addresses)
    }

    /// Glob match where `*` matches any run of bytes.
    /// - Complexity: O(*n* · *m*) at worst.
    static func matches(_ text: [UInt8], _ pattern: [UInt8]) -> Bool {
        var t = 0, p = 0, star = -1, mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == text[t] {
                t += 1; p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p; mark = t; p += 1
            } else if star >= 0 {
                p = star + 1; mark += 1; t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}

/// A `sourceHosts` pattern that could not be read.
public struct HostPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    public var description: String {
        "sourceHosts: \"\(pattern)\" is neither public, an address, a range (10.0.0.0/8) nor a host name pattern (*.example.com)"
    }
}
