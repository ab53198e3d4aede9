/// The `Link: <NEXT>; rel="next"` of a poll's answer: the request to send next, in one canonical form, so that every
/// client at one revision and cursor polls byte for byte the same URL (and a shared cache keeps one entry for them).
///
/// The query's members come in this order: `from`, `format` (when the request named one), `q` (a live query's
/// canonical form, percent-encoded; never `fromQuery`), `wait` (when it named one, as it was written), `cursor`.
struct NextPollLink: Sendable, Equatable {
    /// The list polled.
    let listID: String
    /// The answer's `to`: where the client stands after applying it.
    let from: Int
    /// The request's `format`, as given (`nil` when it named none).
    let format: String?
    /// The live query, canonical and percent-encoded (``LiveQuery/percentEncoded``); `nil` for the whole list.
    var query: String? = nil
    /// The request's `wait`, as given (`nil` when it named none).
    let wait: String?
    /// The next interval.
    let cursor: Int

    /// The path and query of the next poll, such as `/v1/lists/inbox/diff?from=8&wait=30&cursor=88534211`.
    ///
    /// List ids, formats, waits and numbers are all URL-safe characters once checked, so nothing is escaped; the
    /// query comes escaped.
    /// - Complexity: O(1).
    var target: String {
        var target = "/v1/lists/\(listID)/diff?from=\(from)"
        if let format { target += "&format=\(format)" }
        if let query { target += "&q=\(query)" }
        if let wait { target += "&wait=\(wait)" }
        target += "&cursor=\(cursor)"
        return target
    }

    /// The `Link` field value.
    /// - Complexity: O(1).
    var fieldValue: String { "<\(target)>; rel=\"next\"" }
}
