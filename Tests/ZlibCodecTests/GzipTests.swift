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

    @Test func oneInflaterReadsManyMembersAndRecoversFromBadOnes() throws {
        let inflater = GzipInflater()
        let bodies = (0..<50).map { n in Array("member \(n) ".utf8) + Array(repeating: UInt8(n), count: n * 100) }
        for (n, body) in bodies.enumerated() {
            let member = try Gzip.compress(body)
            #expect(try inflater.inflate(member[...], limit: 1 << 20) == body)
            if n % 10 == 0 {
                // A corrupt member, a truncated one and one over the limit in between change nothing after them.
                #expect(throws: GzipError.corruptData) { try inflater.inflate([1, 2, 3, 4][...], limit: 100) }
                #expect(throws: GzipError.corruptData) { try inflater.inflate(member.dropLast(3), limit: 1 << 20) }
                #expect(throws: GzipError.tooLarge(limit: 5)) { try inflater.inflate(member[...], limit: 5) }
            }
        }
    }
}

@Suite struct SpliceableGzipTests {
    @Test func splicedMembersInflateToTheWhole() throws {
        var seed: UInt64 = 1
        for size in [0, 1, 100, 5_000, 200_000] {
            let body = (0..<size).map { _ -> UInt8 in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(ascii: "a") + UInt8(seed >> 60)
            }
            let member = try SpliceableGzip(compressing: body)
            #expect(try Gzip.inflate(member.bytes, limit: 1 << 24) == body)
            let prefix = Array(#"{"id":"x","revision":7,"diff":"#.utf8)
            let suffix = Array("}".utf8)
            let whole = try member.spliced(prefix: prefix, suffix: suffix)
            #expect(try Gzip.inflate(whole, limit: 1 << 24) == prefix + body + suffix)
            #expect(try Gzip.inflate(try member.spliced(prefix: [], suffix: []), limit: 1 << 24) == body)
        }
    }
}
