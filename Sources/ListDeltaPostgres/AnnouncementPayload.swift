import ListDeltaStorage

/// The text of a commit's notification: `<instance>[;<ms>[;<traceparent>]] <c|d|s> <revision> <list id>` (list ids
/// hold no spaces, and are far shorter than `NOTIFY`'s 8,000-byte limit). `s` (a source or a view attached, changed
/// or detached) carries revision 0; an instance of a release that does not know a kind ignores it.
///
/// A commit's ``CommitTrace`` rides in the first field, after the instance's name: an instance of a release before
/// it reads the whole field as a name, which is never its own, so it still takes the announcement in. At most 76
/// characters are added (two `;`, a time of up to 19 digits and a 55-character `traceparent`).
struct AnnouncementPayload: Equatable {
    enum Kind: String {
        case committed = "c"
        case deleted = "d"
        case source = "s"
    }

    let instance: String
    let kind: Kind
    let revision: Int
    let list: String
    let trace: CommitTrace?

    var text: String {
        var origin = instance
        if let trace {
            origin += ";\(trace.committedAtMilliseconds)"
            if let parent = trace.traceParent { origin += ";\(parent)" }
        }
        return "\(origin) \(kind.rawValue) \(revision) \(list)"
    }

    /// Reads a notification's text; `nil` for anything else. A malformed trace is dropped, not the announcement.
    init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let kind = Kind(rawValue: String(parts[1])), let revision = Int(parts[2]), !parts[3].isEmpty else {
            return nil
        }
        let origin = parts[0].split(separator: ";", maxSplits: 2, omittingEmptySubsequences: false)
        var trace: CommitTrace?
        if origin.count > 1, let millis = Int64(origin[1]) {
            trace = CommitTrace(
                traceParent: origin.count > 2 ? String(origin[2]) : nil, committedAtMilliseconds: millis, isFromAnotherInstance: true)
        }
        self.init(instance: String(origin[0]), kind: kind, revision: revision, list: String(parts[3]), trace: trace)
    }

    init(instance: String, kind: Kind, revision: Int, list: String, trace: CommitTrace? = nil) {
        self.instance = instance
        self.kind = kind
        self.revision = revision
        self.list = list
        self.trace = trace
    }
}
