import Testing
import ZlibCodec

@Suite struct GzipTests {
    @Test func roundTripAndBomb() throws {
        let input = Array(repeating: Array("hello list delta ".utf8), count: 200).flatMap { $0 }
        let z = try Gzip.compress(input)
        #expect(z.count < input.count)
        #expect(try Gzip.inflate(z, limit: 1 << 20) == input)
        #expect(throws: GzipError.tooLarge(limit: 100)) { try Gzip.inflate(z, limit: 100) }
        #expect(throws: GzipError.corruptData) { try Gzip.inflate([1, 2, 3, 4], limit: 100) }
    }

    @Test func emptyInputRoundTrips() throws {
        #expect(try Gzip.inflate(try Gzip.compress([]), limit: 10) == [])
    }
}
