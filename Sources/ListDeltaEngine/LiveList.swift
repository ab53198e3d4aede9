public import ListDeltaCore
public import ListDeltaStorage

/// What a request needs to know about a live list: its head and its current document.
public struct LiveList: Sendable {
    public let head: ListHead
    public let document: ListDocument

    public init(head: ListHead, document: ListDocument) {
        self.head = head
        self.document = document
    }
}
