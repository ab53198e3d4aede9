/// A revision of a list: the key of cached documents and their renderings.
public struct RevisionKey: Hashable, Sendable {
    public let list: String
    public let revision: Int

    public init(list: String, revision: Int) {
        self.list = list
        self.revision = revision
    }
}

/// A diff of a list between two revisions in one format: the key of cached diff renderings.
public struct DiffKey: Hashable, Sendable {
    public let list: String
    public let from: Int
    public let to: Int
    public let format: DiffFormat

    public init(list: String, from: Int, to: Int, format: DiffFormat) {
        self.list = list
        self.from = from
        self.to = to
        self.format = format
    }
}
