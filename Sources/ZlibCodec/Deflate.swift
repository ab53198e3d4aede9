import CZlib
import Synchronization

/// One-shot compression with zlib, the step both ``Gzip/compress(_:level:)`` and ``SpliceableGzip`` take.
///
/// A zlib stream costs about 256 KiB of state to set up (window, hash chains, pending buffer), far more than the
/// few hundred bytes a revision's delta or a small body compresses. Streams are therefore kept between calls
/// (``DeflateStream``) and reset, not made again: a call takes an idle one of its settings, or makes one.
enum Deflate {
    /// Idle streams kept for the next calls, at most this many (one per thread compressing at once is enough).
    static let idleLimit = 16
    private static let idle = Mutex<[DeflateStream]>([])

    /// `input` compressed in one call, as a slice of a worst-case-sized buffer (copy it out; do not keep it:
    /// the buffer is about the input's size).
    /// - Parameters:
    ///   - windowBits: zlib's choice of framing: `15 + 16` for a whole gzip member, `-15` for a raw deflate stream.
    ///   - flush: `Z_FINISH` (ends with a final block) or `Z_SYNC_FLUSH` (byte-aligned and open).
    /// - Throws: ``GzipError/initializationFailed(_:)`` when zlib cannot start.
    /// - Complexity: O(*n*) in the input size.
    static func once(_ input: [UInt8], level: Int32, windowBits: Int32, flush: Int32) throws(GzipError) -> ArraySlice<UInt8> {
        let deflater = try take(level: level, windowBits: windowBits)
        defer { giveBack(deflater) }
        let stream = deflater.stream
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

    /// An idle stream with these settings, or a new one.
    private static func take(level: Int32, windowBits: Int32) throws(GzipError) -> DeflateStream {
        let kept = idle.withLock { idle -> DeflateStream? in
            guard let index = idle.lastIndex(where: { $0.level == level && $0.windowBits == windowBits }) else { return nil }
            return idle.remove(at: index)
        }
        if let kept { return kept }
        return try DeflateStream(level: level, windowBits: windowBits)
    }

    /// Resets `deflater` for the next call and keeps it, unless enough are kept (it is then freed).
    private static func giveBack(_ deflater: DeflateStream) {
        guard deflateReset(deflater.stream) == Z_OK else { return }
        idle.withLock { idle in
            if idle.count < idleLimit { idle.append(deflater) }
        }
    }
}

/// One zlib deflate stream and its state, freed with it. Used by one call at a time (``Deflate`` hands it out).
final class DeflateStream: @unchecked Sendable {
    let stream: UnsafeMutablePointer<z_stream>
    let level: Int32
    let windowBits: Int32

    /// - Throws: ``GzipError/initializationFailed(_:)`` when zlib cannot start.
    init(level: Int32, windowBits: Int32) throws(GzipError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let rc = CZlib_deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY)
        guard rc == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .initializationFailed(rc)
        }
        self.level = level
        self.windowBits = windowBits
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
}
