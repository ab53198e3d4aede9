/// The address ranges a source never reaches unless configured: everything that is not a public unicast address
/// on the internet (RFC 6890's special-purpose registries, plus the cloud metadata addresses).
public enum NonPublicAddresses {
    /// Loopback, private, shared (CGNAT), link-local (and so every 169.254.169.254 metadata service), this-network,
    /// documentation, benchmarking, multicast, reserved and broadcast ranges of both families, Azure's WireServer
    /// (168.63.129.16, a metadata service at a public address), IPv4-translated (`::ffff:0:0:0/96`) and local-use
    /// NAT64 (`64:ff9b:1::/48`) addresses; IPv6 forms that embed an IPv4 address (mapped, well-known NAT64, 6to4,
    /// compatible) are checked by the address they embed.
    public static let ranges: [AddressRange] = [
        // IPv4
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "168.63.129.16/32",
        // IPv6
        "::/128", "::1/128", "::ffff:0:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].map { AddressRange($0)! }

    /// `true` when `address` is a public unicast address.
    /// - Complexity: O(*r*) in the number of ranges (about 25).
    public static func isPublic(_ address: IPAddress) -> Bool {
        if let embedded = embeddedIPv4(address) { return isPublic(embedded) }
        return !ranges.contains { $0.contains(address) }
    }

    /// The IPv4 address an IPv6 one stands for: NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`), IPv4-compatible
    /// (`::a.b.c.d`, deprecated but still routed by some stacks).
    static func embeddedIPv4(_ address: IPAddress) -> IPAddress? {
        let b = address.bytes
        if AddressRange("64:ff9b::/96")!.contains(address) {
            return IPAddress(ipv4: b[12], b[13], b[14], b[15])
        }
        if b[0] == 0x20, b[1] == 0x02 { return IPAddress(ipv4: b[2], b[3], b[4], b[5]) }
        if b[0..<12].allSatisfy({ $0 == 0 }), !(b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] <= 1) {
            return IPAddress(ipv4: b[12], b[13], b[14], b[15])
        }
        return nil
    }
}
