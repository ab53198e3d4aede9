@testable import HTTPServer
import Testing

/// What a request's server span may record of its query: never an `access_token`'s value.
@Suite struct RequestTracingTests {
    @Test func anAccessTokensValueIsReplacedWhereverItIs() {
        #expect(RequestTracing.redacted("access_token=s3cret") == "access_token=REDACTED")
        #expect(RequestTracing.redacted("from=3&access_token=s3cret&wait=20") == "from=3&access_token=REDACTED&wait=20")
        #expect(RequestTracing.redacted("ACCESS_TOKEN=a&access_token=b") == "ACCESS_TOKEN=REDACTED&access_token=REDACTED")
        #expect(RequestTracing.redacted("access_token") == "access_token=REDACTED")
        #expect(RequestTracing.redacted("access%5Ftoken=s3cret&access%5ftoken=x") == "access%5Ftoken=REDACTED&access%5ftoken=REDACTED")
        #expect(RequestTracing.redacted("bad%zzname=s3cret") == "bad%zzname=REDACTED")
    }

    /// SplitMix64's published sequence from seed 0, and draws in 0..<1 spread over it.
    @Test func theDrawsOfWhichRequestsAreTracedAreSplitMix64() {
        var generator = SplitMix64(seed: 0)
        #expect([generator.next(), generator.next(), generator.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var draws = SplitMix64(seed: 42)
        let kept = (0..<100_000).filter { _ in draws.nextUnitInterval() < 0.01 }.count
        #expect((800...1_200).contains(kept), "\(kept) of 100,000 draws under 0.01")
    }

    @Test func otherParametersAreKeptAsSent() {
        #expect(RequestTracing.redacted("from=3&wait=20&q=status%3Dopen") == "from=3&wait=20&q=status%3Dopen")
        #expect(RequestTracing.redacted("my_access_token=x&&a") == "my_access_token=x&&a")
    }
}
