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
        if Self.status(ofResponseAt: previousLength, in: buffer) == 100 { return }
        errorPageStart = previousLength
        loop.rewriteLater(self)
    }

    /// Replaces the error page that began at `errorPageStart`; called by the loop in the pass it was written in.
    func rewriteErrorPage() {
        guard let start = errorPageStart, isOpen, let buffer = bufferevent_get_output(bufferEvent) else { return }
        errorPageStart = nil
        let length = evbuffer_get_length(buffer)
        let prefix = Self.copy(buffer, from: 0, count: start)
        let status = Self.status(ofResponseAt: start, in: buffer) ?? 400
        // Always HTTP/1.1: libevent echoes whatever version the request line claimed (even `HTTP/-1.5`).
        let replacement = prefix + loop.rawProblemResponse(Self.problem(for: status), version: "HTTP/1.1")
        rewritingErrorPage = true
        Self.withStartUnfrozen(buffer) {
            evbuffer_drain(buffer, length)
            replacement.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        }
        rewritingErrorPage = false
    }

    /// The status of a response head `HTTP/<anything> NNN ...` starting at `offset`, if one starts there.
    static func status(ofResponseAt offset: Int, in buffer: OpaquePointer) -> Int? {
        let head = copy(buffer, from: offset, count: 32)
        guard head.starts(with: "HTTP/".utf8), let space = head.firstIndex(of: UInt8(ascii: " ")),
            head.count >= space + 4
        else { return nil }
        let digits = head[(space + 1)..<(space + 4)]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
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

    /// Runs `body` with the start of a bufferevent's output buffer unfrozen. The socket bufferevent freezes it after
    /// its first write (only it may drain it), and a frozen start refuses copies and drains alike; frozen again
    /// after, which is the state its writes expect.
    static func withStartUnfrozen<R>(_ buffer: OpaquePointer, _ body: () -> R) -> R {
        evbuffer_unfreeze(buffer, 1)
        defer { evbuffer_freeze(buffer, 1) }
        return body()
    }

    /// Up to `count` bytes of `buffer` from `offset`.
    static func copy(_ buffer: OpaquePointer, from offset: Int, count: Int) -> [UInt8] {
        let length = evbuffer_get_length(buffer)
        guard offset < length, count > 0 else { return [] }
        let wanted = min(count, length - offset)
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, offset, EVBUFFER_PTR_SET) == 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: wanted) { storage, initialized in
            let copied = withStartUnfrozen(buffer) { evbuffer_copyout_from(buffer, &position, storage.baseAddress, wanted) }
            initialized = max(0, copied)
        }
    }
}
