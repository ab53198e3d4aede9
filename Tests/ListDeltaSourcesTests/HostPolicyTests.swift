import ListDeltaSources
import Testing

@Suite struct AddressTests {
    @Test(arguments: [
        "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
        "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
        "64:ff9b::a00:1", "2002:7f00:1::", "2001:db8::1", "ff02::1", "168.63.129.16", "::ffff:0:a00:1", "64:ff9b:1::808:808",
    ])
    func nonPublicAddressesAreRecognised(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(!NonPublicAddresses.isPublic(address), "\(text) must not count as public")
    }

    @Test(arguments: ["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"])
    func publicAddressesAreRecognised(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(NonPublicAddresses.isPublic(address), "\(text) is public")
    }

    @Test func literalsParseAndPrint() throws {
        #expect(IPAddress("10.0.0.1")?.description == "10.0.0.1")
        #expect(IPAddress("[::1]")?.description == "::1")
        #expect(IPAddress("::1")?.urlHost == "[::1]")
        #expect(IPAddress("example.com") == nil)
        #expect(IPAddress("1.2.3") == nil || IPAddress("1.2.3")?.isIPv4 == true)
        let range = try #require(AddressRange("10.0.0.0/8"))
        #expect(range.contains(try #require(IPAddress("10.255.0.1"))))
        #expect(!range.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(AddressRange("10.0.0.0/33") == nil)
        #expect(AddressRange("fc00::/7")?.contains(try #require(IPAddress("fdff::1"))) == true)
    }
}

@Suite struct HostPolicyTests {
    let loopback = IPAddress("127.0.0.1")!
    let metadata = IPAddress("169.254.169.254")!
    let publicAddress = IPAddress("93.184.216.34")!

    @Test func theDefaultAllowsOnlyPublicAddresses() throws {
        let policy = try HostPolicy(patterns: [])
        #expect(policy == .publicOnly)
        #expect(throws: SourceFetchError.self) { try policy.check(host: "localhost", addresses: [loopback]) }
        #expect(throws: SourceFetchError.self) { try policy.check(host: "metadata.internal", addresses: [metadata]) }
        try policy.check(host: "example.com", addresses: [publicAddress])
        // One bad address among good ones refuses the host: the connection could go to any of them.
        #expect(throws: SourceFetchError.self) { try policy.check(host: "mixed.example", addresses: [publicAddress, loopback]) }
    }

    @Test func refusalsSayWhyAndName() {
        do {
            try HostPolicy.publicOnly.check(host: "evil.example", addresses: [metadata])
            Issue.record("refused")
        } catch {
            #expect(error.kind == .refusedHost)
            #expect(error.message.contains("evil.example is not a host sources may reach"))
            // Whatever the reason (an address refused, none, or no answer from the resolver), one answer.
            #expect(error == HostPolicy.refusal(of: "evil.example"))
            #expect(!error.message.contains("169.254"), "what a name resolves to is not told")
        }
    }

    @Test func addressPatternsAllowTheirRangesOnly() throws {
        let policy = try HostPolicy(patterns: ["127.0.0.1"])
        try policy.check(host: "127.0.0.1", addresses: [loopback])
        #expect(throws: SourceFetchError.self) { try policy.check(host: "169.254.169.254", addresses: [metadata]) }
        // Listing a range without "public" makes the list exclusive.
        #expect(throws: SourceFetchError.self) { try policy.check(host: "example.com", addresses: [publicAddress]) }
        let both = try HostPolicy(patterns: ["public", "10.0.0.0/8"])
        try both.check(host: "example.com", addresses: [publicAddress])
        try both.check(host: "intranet", addresses: [IPAddress("10.2.3.4")!])
        #expect(throws: SourceFetchError.self) { try both.check(host: "localhost", addresses: [loopback]) }
    }

    @Test func namePatternsAllowByName() throws {
        let policy = try HostPolicy(patterns: ["*.corp.example", "feeds.local"])
        #expect(policy.allowsByName("news.corp.example"))
        #expect(policy.allowsByName("FEEDS.local."))
        #expect(!policy.allowsByName("corp.example.evil"))
        try policy.check(host: "a.corp.example", addresses: [IPAddress("10.0.0.5")!])
        #expect(throws: SourceFetchError.self) { try policy.check(host: "other.example", addresses: [publicAddress]) }
    }

    @Test func unreadablePatternsAreRefused() {
        #expect(throws: HostPolicyError.self) { try HostPolicy(patterns: ["http://x"]) }
        #expect(throws: HostPolicyError.self) { try HostPolicy(patterns: ["*"]) }
        #expect(throws: HostPolicyError.self) { try HostPolicy(patterns: ["10.0.0.0/99"]) }
    }
}

@Suite struct NonPublicRangeTableTests {
    /// Every range of the table parses (a typo would otherwise stop the service at its first check).
    @Test func everyRangeIsWellFormed() {
        #expect(NonPublicAddresses.ranges.count >= 25)
    }
}
