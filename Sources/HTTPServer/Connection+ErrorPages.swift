import CLibevent

/// Turns evhttp's own HTML error pages into RFC 9457 problem details.
///
/// libevent 2.1 answers a request it cannot take (a malformed request line or header field, a head or body over
/// its limits, a method it does not know) with `evhttp_send_error`, an HTML page, without calling the server.
/// Such a page is written while the connection is receiving, when nothing of ours is being written, so the output
/// watch sees it begin. evhttp writes the whole page at once (the head, then the body, unless the request asked
/// for `100-continue`) and sends it only on a later loop pass, so the rewrite runs later in the same pass: it
/// replaces the page with a problem+json answer that keeps evhttp's status code and `Connection: close` (evhttp
/// closes the connection after it either way).
extension Connection {
    func outputGrew(_ buffer: OpaquePointer, previousLength: Int) {
        guard !rewritingErrorPage, errorPageStart == nil else { return }
        // An interim `100 Continue` is evhttp's too, and right as it is.
        if Self.startsWith(buffer, at: previousLength, Self.continuePrefix) { return }
        errorPageStart = previousLength
        loop.rewriteLater(self)
    }

    /// Replaces the error page that began at `errorPageStart`; called by the loop in the pass it was written in.
    func rewriteErrorPage() {
        guard let start = errorPageStart, isOpen, let buffer = bufferevent_get_output(bufferEvent) else { return }
        errorPageStart = nil
        let length = evbuffer_get_length(buffer)
        let head = Self.copy(buffer, from: 0, count: min(length, start + 12))
        guard head.count == start + 12, head[start..<(start + 7)].elementsEqual("HTTP/1.".utf8) else { return }
        let version = String(decoding: head[start..<(start + 8)], as: UTF8.self)
        let status = Int(String(decoding: head[(start + 9)..<(start + 12)], as: UTF8.self)) ?? 400
        let replacement = Array(head[0..<start]) + loop.rawProblemResponse(Self.problem(for: status), version: version)
        rewritingErrorPage = true
        evbuffer_drain(buffer, length)
        replacement.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        rewritingErrorPage = false
    }

    /// The problem that replaces evhttp's page for `status`.
    static func problem(for status: Int) -> ProblemDetails {
        let detail =
            switch status {
            case 400: "The request could not be parsed: a malformed request line or header field, or a request head over the size limit."
            case 413: "The request body exceeds the size limit."
            case 417: "The only expectation supported is Expect: 100-continue."
            case 501: "The request method is not supported."
            default: "\(HTTPStatus.reasonPhrase(status))."
            }
        return ProblemDetails(status: status, detail: detail)
    }

    private static let continuePrefix = Array("HTTP/1.1 100 ".utf8)

    private static func startsWith(_ buffer: OpaquePointer, at offset: Int, _ prefix: [UInt8]) -> Bool {
        let bytes = copy(buffer, from: offset, count: prefix.count)
        return bytes.count == prefix.count && bytes[0..<7] == prefix[0..<7] && bytes[8...] == prefix[8...]
    }

    /// Up to `count` bytes of `buffer` from `offset`.
    static func copy(_ buffer: OpaquePointer, from offset: Int, count: Int) -> [UInt8] {
        let length = evbuffer_get_length(buffer)
        guard offset < length, count > 0 else { return [] }
        let wanted = min(count, length - offset)
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, offset, EVBUFFER_PTR_SET) == 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: wanted) { storage, initialized in
            initialized = max(0, evbuffer_copyout_from(buffer, &position, storage.baseAddress, wanted))
        }
    }
}
