import CZlib

/// One-shot compression with zlib, the step both ``Gzip/compress(_:level:)`` and ``SpliceableGzip`` take.
enum Deflate {
    /// `input` compressed in one call, as a slice of a worst-case-sized buffer (copy it out; do not keep it:
    /// the buffer is about the input's size).
    /// - Parameters:
    ///   - windowBits: zlib's choice of framing: `15 + 16` for a whole gzip member, `-15` for a raw deflate stream.
    ///   - flush: `Z_FINISH` (ends with a final block) or `Z_SYNC_FLUSH` (byte-aligned and open).
    /// - Throws: ``GzipError/initializationFailed(_:)`` when zlib cannot start.
    /// - Complexity: O(*n*) in the input size.
    static func once(_ input: [UInt8], level: Int32, windowBits: Int32, flush: Int32) throws(GzipError) -> ArraySlice<UInt8> {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deinitialize(count: 1); stream.deallocate() }
        let rc = CZlib_deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY)
        guard rc == Z_OK else { throw .initializationFailed(rc) }
        defer { deflateEnd(stream) }
        // deflateBound covers the finished stream; a sync flush adds at most a few bytes more.
        let bound = Int(deflateBound(stream, uLong(input.count))) + 16
        var output = [UInt8](repeating: 0, count: bound)
        let produced: Int = input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = out.baseAddress!
                stream.pointee.avail_out = uInt(bound)
                _ = CZlib.deflate(stream, flush)
                return bound - Int(stream.pointee.avail_out)
            }
        }
        return output[..<produced]
    }
}
