import CZlib

/// gzip compression and bounded inflation with zlib.
public enum Gzip {
    /// Compresses `bytes` into the gzip format.
    /// - Parameters:
    ///   - bytes: The input.
    ///   - level: The zlib level, 0-9. The default is 6.
    /// - Returns: The gzip member.
    /// - Throws: ``GzipError/initializationFailed(_:)`` when zlib cannot start.
    /// - Complexity: O(*n*), where *n* is the input size.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) throws(GzipError) -> [UInt8] {
        let produced = try Deflate.once(bytes, level: level, windowBits: 15 + 16, flush: Z_FINISH)
        // Exactly the produced bytes: a kept body holds what it reserved, not the worst case.
        var exact: [UInt8] = []
        exact.reserveCapacity(produced.count)
        exact += produced
        return exact
    }

    /// Inflates gzip (or zlib) data in bounded 64 KiB steps.
    /// - Parameters:
    ///   - bytes: The compressed input.
    ///   - limit: The largest inflated size accepted, in bytes.
    /// - Returns: The inflated bytes.
    /// - Throws: ``GzipError/tooLarge(limit:)`` as soon as the output passes `limit` (no more memory is used),
    ///   ``GzipError/corruptData`` for invalid or truncated input.
    /// - Complexity: O(*m*), where *m* is the inflated size (at most `limit`).
    public static func inflate(_ bytes: [UInt8], limit: Int) throws(GzipError) -> [UInt8] {
        try GzipInflater().inflate(bytes[...], limit: limit)
    }
}

/// Inflates many gzip (or zlib) members one after the other with one zlib stream and one output buffer, reset
/// between members: for many small blobs (a run of stored diffs), where setting a stream up costs more than
/// inflating. Not for use from two threads at once.
public final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var isReady = false
    private static let chunk = 64 * 1024
    private var scratch = [UInt8](repeating: 0, count: GzipInflater.chunk)

    /// Creates an inflater; zlib's state is set up on first use.
    public init() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isReady { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates one member, like ``Gzip/inflate(_:limit:)``.
    /// - Complexity: O(*m*), where *m* is the inflated size (at most `limit`).
    public func inflate(_ bytes: ArraySlice<UInt8>, limit: Int) throws(GzipError) -> [UInt8] {
        if isReady {
            guard inflateReset(stream) == Z_OK else { throw .corruptData }
        } else {
            let rc = CZlib_inflateInit2(stream, 15 + 32)
            guard rc == Z_OK else { throw .initializationFailed(rc) }
            isReady = true
        }
        let chunk = Self.chunk
        let stream = self.stream
        var output: [UInt8] = []
        var failure: GzipError?
        bytes.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                let (status, produced) = scratch.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.pointee.next_out = out.baseAddress
                    stream.pointee.avail_out = uInt(chunk)
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    return (status, chunk - Int(stream.pointee.avail_out))
                }
                if output.count + produced > limit { failure = .tooLarge(limit: limit); return }
                output.append(contentsOf: scratch[0..<produced])
                switch status {
                case Z_STREAM_END: return
                case Z_OK: continue
                case Z_BUF_ERROR where produced > 0: continue
                default: failure = .corruptData; return
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}
