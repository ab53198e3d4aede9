import ListDeltaCore

/// The lists a many-lists request follows, each with the revision the client holds, in the client's order:
/// `a:5,b:0` (the `lists` query parameter, and the `id:` of every event of a many-lists stream).
///
/// A value: a stream keeps one and advances it list by list; its text is the whole set's resume point.
struct ListCursor: Sendable, Equatable, CustomStringConvertible {
    /// The lists in the client's order.
    private(set) var ids: [String]
    private var revisions: [String: Int]

    /// One list at `revision`.
    init(id: String, revision: Int) {
        ids = [id]
        revisions = [id: revision]
    }

    /// Reads `text` (`id:revision`, comma-separated; at most `maximum` entries, no id twice).
    ///
    /// - Parameter name: the parameter or header read, named in the problem with the entry's pointer
    ///   (`/lists/2` for the third entry).
    /// - Throws: 400 for an empty text, too many entries, a malformed id or revision, or an id named twice.
    /// - Complexity: O(*n*) for *n* characters.
    init(parsing text: String, maximum: Int, name: String = "lists") throws(ServiceError) {
        guard !text.isEmpty else { throw .badRequest("\(name) must name at least one list, as id:revision") }
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
        guard entries.count <= maximum else {
            throw .badRequest("\(name) names \(entries.count) lists; at most \(maximum) are allowed in one request")
        }
        ids = []
        revisions = [:]
        ids.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let pointer = "/\(name)/\(index)"
            let shown = "\"\(entry.prefix(40))\(entry.count > 40 ? "…" : "")\""
            guard let colon = entry.lastIndex(of: ":") else {
                throw .invalidParameter("entry \(index) of \(name), \(shown), is not id:revision", pointer: pointer)
            }
            let id = String(entry[..<colon])
            guard ListDocument.isValidID(id) else {
                throw .invalidParameter(
                    "entry \(index) of \(name), \(shown), has a malformed list id: \(ListDocument.idRule)", pointer: pointer)
            }
            let revision: Int
            do {
                revision = try RequestReading.integer(String(entry[entry.index(after: colon)...]), name: "the revision", maximum: Int(Int32.max))
            } catch {
                throw .invalidParameter(
                    "entry \(index) of \(name), \(shown), needs a revision from 0 to \(Int32.max) after the colon", pointer: pointer)
            }
            guard revisions.updateValue(revision, forKey: id) == nil else {
                throw .invalidParameter("entry \(index) of \(name) names \"\(id)\" a second time", pointer: pointer)
            }
            ids.append(id)
        }
    }

    /// The revision held of `id` (`nil` when the set does not name it).
    subscript(id: String) -> Int? {
        get { revisions[id] }
        set {
            guard let newValue, revisions[id] != nil else { return }
            revisions[id] = newValue
        }
    }

    /// Takes the revisions `other` holds of the lists both name (a resumed stream's `Last-Event-ID`).
    mutating func resume(from other: ListCursor) {
        for id in ids { if let revision = other[id] { revisions[id] = revision } }
    }

    /// `a:5,b:0`, in the client's order.
    /// - Complexity: O(*n*) for *n* lists.
    var description: String {
        ids.map { "\($0):\(revisions[$0] ?? 0)" }.joined(separator: ",")
    }
}
