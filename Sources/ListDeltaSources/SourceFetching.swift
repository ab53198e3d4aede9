/// Anything that fetches a source's content: the web, a file, a test double. Calls block their thread (the
/// service runs them on its own fetch workers, never on an event loop).
public protocol SourceFetching: Sendable {
    /// Fetches `request`, conditionally when it carries validators.
    /// - Throws: `SourceFetchError` for anything that brought no usable content.
    func fetch(_ request: FetchRequest) throws(SourceFetchError) -> FetchResponse
}
