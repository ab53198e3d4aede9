import ListDeltaCore
import ListDeltaStore

/// What a request needs to know about a live list: its head and its current document.
struct LiveList: Sendable {
    let head: ListHead
    let document: ListDocument
}

/// The result of a write.
struct WriteOutcome: Sendable {
    /// The document now current.
    let document: ListDocument
    /// The batch diff from the previous revision (from 0 on create); empty when nothing changed.
    let diff: ListDiff
    /// ``diff`` as served (batch format), rendered and compressed once for every use.
    let renderedDiff: RenderedBody
    /// The previous document, or the empty list on create.
    let previous: ListDocument
    /// `true` when the write created the list.
    let created: Bool
    /// `false` when the write changed nothing and made no revision.
    let changed: Bool
}

/// The precondition headers of a write.
struct WritePreconditions: Sendable {
    /// `If-Match`: the revisions its strong tags name (any one will do; empty when none can match), or `nil`
    /// without the field.
    var ifMatch: [Int]?
    /// `true` when `If-Match: *` (the list must exist).
    var ifMatchAny = false
    /// `If-None-Match: *`: create only.
    var createOnly = false

    /// `true` when the write names no revision it builds on: of racing writers through several instances, the one
    /// that loses is tried again on the winner's revision instead of failing.
    var retriesAfterRace: Bool { ifMatch == nil && !createOnly }
}

/// Cache keys.
struct RevisionKey: Hashable, Sendable {
    let list: String
    let revision: Int
}

struct DiffKey: Hashable, Sendable {
    let list: String
    let from: Int
    let to: Int
    let format: DiffFormat
}

/// The two renderings of a diff.
enum DiffFormat: String, Sendable, Hashable {
    case batch
    case jsonPatch = "json-patch"

    var contentType: String {
        self == .batch ? "application/json" : "application/json-patch+json"
    }
}
