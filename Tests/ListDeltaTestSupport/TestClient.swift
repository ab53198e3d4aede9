import Glibc

/// A parsed HTTP/1.1 response.
public struct TestResponse {
    public var status: Int
    public var headers: [String: String]  // lower-cased names; repeated fields joined with ", "
    public var body: [UInt8]
    /// Every field's lower-cased name, in order and repeated as often as it came.
    public var fieldNames: [String] = []
    public var text: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A small blocking POSIX-socket HTTP/1.1 client for live tests.
///
/// Its socket is closed once: by ``close()`` or when the client goes away. Closing a descriptor number twice can
/// close another test's socket that reused the number (the tests of one process run at once): a PostgreSQL
/// connection's, whose event loop then crashes on EBADF.
public final class TestClient {
    private let fd: Int32
    private var isClosed = false
    private var buffer: [UInt8] = []

    public init?(port: Int, timeoutSeconds: Int = 5) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            close()  // here, so that deinit (which runs for a failed init too) does not close it again
            return nil
        }
    }

    deinit { close() }

    /// Closes the socket (the server sees the client go away); later calls do nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = Glibc.close(fd)
    }

    /// Sends raw bytes; false on error.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends a request with `Content-Length` when there is a body.
    @discardableResult
    public func sendRequest(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) -> Bool {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return send(Array(head.utf8) + body)
    }

    /// Sends a request and reads its response.
    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) -> TestResponse? {
        guard sendRequest(method, path, headers: headers, body: body) else { return nil }
        return readResponse(isHead: method == "HEAD")
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func readLine() -> String? {
        while true {
            if let i = buffer.firstIndex(of: 10) {
                var line = Array(buffer[..<i])
                buffer.removeFirst(i + 1)
                if line.last == 13 { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            if !fill() { return nil }
        }
    }

    private func readBytes(_ count: Int) -> [UInt8]? {
        while buffer.count < count { if !fill() { return nil } }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    /// Reads the status line and headers.
    public func readHead() -> TestResponse? {
        guard let statusLine = readLine() else { return nil }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [String: String] = [:]
        var names: [String] = []
        while let line = readLine(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters()
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
            names.append(name)
        }
        return TestResponse(status: status, headers: headers, body: [], fieldNames: names)
    }

    /// Reads one complete response (Content-Length or chunked body).
    public func readResponse(isHead: Bool = false) -> TestResponse? {
        guard var response = readHead() else { return nil }
        if isHead || response.status == 204 || response.status == 304 { return response }
        if response.header("transfer-encoding") == "chunked" {
            var body: [UInt8] = []
            while let chunk = readChunk() {
                if chunk.isEmpty { break }
                body += chunk
            }
            response.body = body
        } else if let length = Int(response.header("content-length") ?? "0") {
            guard let body = readBytes(length) else { return nil }
            response.body = body
        }
        return response
    }

    /// Reads one chunk of a chunked body; empty for the last chunk, `nil` on EOF/timeout.
    public func readChunk() -> [UInt8]? {
        guard let sizeLine = readLine(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { return nil }
        guard let data = readBytes(size), readLine() != nil else { return nil }
        return data
    }

    /// Whether the peer has closed the connection (EOF or reset), without waiting.
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n == 0 { return true }
        return n < 0 && errno == ECONNRESET
    }

    /// Whether bytes (or EOF) wait to be read, polling up to `milliseconds`.
    public func isReadable(milliseconds: Int32) -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Every byte up to the peer's close (a body delimited by the connection's end), or `nil` on a timeout.
    public func readToEnd() -> [UInt8]? {
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { return buffer }
            if n < 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Whether the peer closed the connection (EOF) before `timeout` seconds.
    public func waitForEOF() -> Bool {
        while true {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }
}

extension Substring {
    public func trimmingCharacters() -> String {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
