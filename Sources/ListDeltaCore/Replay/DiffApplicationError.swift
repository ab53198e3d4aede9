/// A diff that does not fit the document it is applied to.
public struct DiffApplicationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What did not fit.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "the diff does not fit the document: \(reason)" }
}
