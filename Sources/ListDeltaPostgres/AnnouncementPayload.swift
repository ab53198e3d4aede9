/// The text of a commit's notification: `<instance> <c|d|s> <revision> <list id>` (list ids hold no spaces, and
/// are far shorter than `NOTIFY`'s 8,000-byte limit). `s` (a source or a view attached, changed or detached) carries
/// revision 0; an instance of a release that does not know a kind ignores it.
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

    var text: String { "\(instance) \(kind.rawValue) \(revision) \(list)" }

    /// Reads a notification's text; `nil` for anything else.
    init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let kind = Kind(rawValue: String(parts[1])), let revision = Int(parts[2]), !parts[3].isEmpty else {
            return nil
        }
        self.init(instance: String(parts[0]), kind: kind, revision: revision, list: String(parts[3]))
    }

    init(instance: String, kind: Kind, revision: Int, list: String) {
        self.instance = instance
        self.kind = kind
        self.revision = revision
        self.list = list
    }
}
