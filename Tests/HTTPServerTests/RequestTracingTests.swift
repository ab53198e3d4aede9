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

    @Test func otherParametersAreKeptAsSent() {
        #expect(RequestTracing.redacted("from=3&wait=20&q=status%3Dopen") == "from=3&wait=20&q=status%3Dopen")
        #expect(RequestTracing.redacted("my_access_token=x&&a") == "my_access_token=x&&a")
    }
}
