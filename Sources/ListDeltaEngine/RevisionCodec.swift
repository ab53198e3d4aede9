import ListDeltaCore
import ZlibCodec

/// The bytes a revision is stored as, so a revision costs what it changed.
///
/// A snapshot is the whole document as served, gzip'd. A delta is the batch diff from the previous revision plus
/// the header fields a batch diff does not carry (`kind`, `cells`); replaying it gives the revision exactly. A
/// delta is framed as byte 1, the length of its header (4 bytes, big-endian), the header `{"kind","cells"}` as
/// JSON, then the diff's bytes as the service serves them gzip'd: the same bytes that the diff cache, the watchers
/// and the write's response use, rendered and compressed once (a diff too small to be served gzip'd is compressed
/// here for the disk).
/// Deltas written before that framing are one gzip'd `{"kind","cells","diff"}` object; both are read.
/// An undo diff (the inverse of a revision's delta, with the previous revision's `kind` and `cells`) is framed
/// like a delta.
enum RevisionCodec {
    /// A stored blob could not be read back.
    struct CorruptRevision: Error, CustomStringConvertible {
        let reason: String
        var description: String { "stored revision is unreadable: \(reason)" }
    }

    /// The largest inflated blob accepted when reading back (documents are bounded by the body limit anyway).
    static let inflateLimit = 1 << 30

    static func snapshot(of document: ListDocument) -> [UInt8] {
        compress(JSONWriter.bytes(of: document.jsonValue))
    }

    /// The framing byte of a delta whose diff bytes are the served ones.
    private static let framedDelta: UInt8 = 1

    /// The delta of a revision whose diff from the previous one is `diff`, already rendered.
    static func delta(_ diff: RenderedBody, to document: ListDocument) -> [UInt8] {
        var header = JSONObject()
        header["kind"] = .string(document.kind.rawValue)
        header["cells"] = document.cellsJSON ?? .null
        let headerBytes = JSONWriter.bytes(of: .object(header))
        let count = UInt32(headerBytes.count)
        var blob: [UInt8] = [framedDelta, UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count)]
        // A diff served plain (too small to compress per response) is still compressed for the disk, once, here:
        // revisions are kept by the thousand.
        let stored = diff.gzip ?? compress(diff.plain)
        blob.reserveCapacity(5 + headerBytes.count + stored.count)
        blob += headerBytes
        blob += stored
        return blob
    }

    static func document(fromSnapshot blob: [UInt8]) throws(CorruptRevision) -> ListDocument {
        do {
            return try ListDocument(servedJSON: try read(blob[...]))
        } catch let error as CorruptRevision {
            throw error
        } catch {
            throw CorruptRevision(reason: "\(error)")
        }
    }

    /// Replays a delta or an undo blob on a replayer, header fields included; a run of blobs shares `inflater`.
    static func replay(_ blob: [UInt8], on replayer: inout DiffReplayer, inflater: GzipInflater) throws {
        try read(delta: blob, inflater: inflater).replay(on: &replayer)
    }

    /// A stored delta (or undo) read back: the diff and the header fields of the document it leads to.
    struct Delta: Sendable {
        let kind: ListKind
        let cells: [String: String]?
        let diff: ListDiff

        /// Applies the diff and sets the header fields.
        func replay(on replayer: inout DiffReplayer) throws(DiffApplicationError) {
            try replayer.apply(diff)
            replayer.kind = kind
            replayer.cells = cells
        }

        /// What it holds on the heap, for a cache's budget.
        var estimatedHeapBytes: Int {
            // A registry entry: its two strings and its slot in the dictionary's table.
            RenderedBody.entryBytes + diff.estimatedHeapBytes + (cells.map { 96 + $0.count * 96 } ?? 0)
        }
    }

    /// Reads a delta or an undo blob.
    static func read(delta blob: [UInt8], inflater: GzipInflater = GzipInflater()) throws(CorruptRevision) -> Delta {
        do {
            let (header, diffJSON) = try readDelta(blob, inflater)
            return Delta(
                kind: try ListDocument.kind(servedJSON: header["kind"]), cells: try ListDocument.cells(servedJSON: header["cells"]),
                diff: try ListDiff(json: diffJSON))
        } catch let error as CorruptRevision {
            throw error
        } catch {
            throw CorruptRevision(reason: "\(error)")
        }
    }

    /// A delta's header (`kind`, `cells`) and its diff, from either framing.
    private static func readDelta(_ blob: [UInt8], _ inflater: GzipInflater) throws -> (header: JSONObject, diff: JSONValue) {
        guard blob.first == framedDelta else {
            guard case .object(let object) = try read(blob[...], inflater), let diff = object["diff"] else {
                throw CorruptRevision(reason: "a delta must be an object with a diff")
            }
            return (object, diff)
        }
        guard blob.count >= 5 else { throw CorruptRevision(reason: "a framed delta is too short") }
        let count = blob[1...4].reduce(0) { $0 << 8 | Int($1) }
        guard 5 + count <= blob.count, case .object(let header) = try read(blob[5..<(5 + count)], inflater) else {
            throw CorruptRevision(reason: "a framed delta's header is unreadable")
        }
        return (header, try read(blob[(5 + count)...], inflater))
    }

    private static func compress(_ bytes: [UInt8]) -> [UInt8] {
        // Compression of bytes in memory cannot fail but for memory exhaustion; store them plain then (a reader
        // tells the two apart by gzip's magic bytes). Plain also when gzip would not be smaller.
        guard let compressed = try? Gzip.compress(bytes, level: 6), compressed.count < bytes.count else { return bytes }
        return compressed
    }

    private static func read(_ blob: ArraySlice<UInt8>, _ inflater: GzipInflater = GzipInflater()) throws -> JSONValue {
        let isGzip = blob.count >= 2 && blob[blob.startIndex] == 0x1F && blob[blob.startIndex + 1] == 0x8B
        let bytes = isGzip ? try inflater.inflate(blob, limit: inflateLimit) : Array(blob)
        return try JSONReader(maximumDepth: 600).read(bytes)
    }
}
