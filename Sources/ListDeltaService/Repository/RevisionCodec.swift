import ListDeltaCore
import ZlibCodec

/// The bytes a revision is stored as: gzip'd JSON, so a revision costs what it changed.
///
/// A snapshot is the whole document as served. A delta is `{"kind","cells","diff"}`: the batch diff from the
/// previous revision plus the header fields a batch diff does not carry; replaying it gives the revision
/// exactly.
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

    static func delta(_ diff: ListDiff, to document: ListDocument) -> [UInt8] {
        var object = JSONObject()
        object["kind"] = .string(document.kind.rawValue)
        object["cells"] = document.cellsJSON ?? .null
        object["diff"] = diff.jsonValue
        return compress(JSONWriter.bytes(of: .object(object)))
    }

    static func document(fromSnapshot blob: [UInt8]) throws(CorruptRevision) -> ListDocument {
        do {
            return try ListDocument(servedJSON: try read(blob))
        } catch let error as CorruptRevision {
            throw error
        } catch {
            throw CorruptRevision(reason: "\(error)")
        }
    }

    /// Replays a delta on the document of the previous revision.
    static func apply(delta blob: [UInt8], to document: consuming ListDocument) throws(CorruptRevision) -> ListDocument {
        do {
            guard case .object(let object) = try read(blob), let diffJSON = object["diff"] else {
                throw CorruptRevision(reason: "a delta must be an object with a diff")
            }
            var next = try ListDiff(json: diffJSON).apply(to: consume document)
            next.kind = try ListDocument.kind(servedJSON: object["kind"])
            next.cells = try ListDocument.cells(servedJSON: object["cells"])
            return next
        } catch let error as CorruptRevision {
            throw error
        } catch {
            throw CorruptRevision(reason: "\(error)")
        }
    }

    private static func compress(_ bytes: [UInt8]) -> [UInt8] {
        // Compression of bytes in memory cannot fail but for memory exhaustion; store them plain then.
        (try? Gzip.compress(bytes, level: 6)) ?? bytes
    }

    private static func read(_ blob: [UInt8]) throws -> JSONValue {
        let isGzip = blob.count >= 2 && blob[0] == 0x1F && blob[1] == 0x8B
        let bytes = isGzip ? try Gzip.inflate(blob, limit: inflateLimit) : blob
        return try JSONReader(maximumDepth: 600).read(bytes)
    }
}
