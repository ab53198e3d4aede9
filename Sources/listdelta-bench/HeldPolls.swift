import Foundation
import ListDeltaCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Long polls of many live queries of one list, each on its own keep-alive connection, all driven by one thread with
/// `poll(2)`: each poll is sent again from its answer's `to` as soon as it is answered, and each answer is recorded
/// with the moment `poll(2)` reported its last bytes (before the client parses it) and whether it changed anything.
final class HeldPolls: @unchecked Sendable {
    struct Answer {
        let at: ContinuousClock.Instant
        let changed: Bool
    }

    private struct Poll {
        let fd: Int32
        let query: String
        var from: Int
        var buffer: [UInt8] = []
    }

    private let list: String
    private var polls: [Poll]
    private let answers = Mutex<[Answer]>([])
    private let stopped = Atomic(false)
    private var thread: Thread?

    /// Connects one socket per query (`queries`: JSON texts) to the server on `port`.
    init(queries: [String], list: String, from: Int, port: Int) throws {
        self.list = list
        polls = try queries.map { Poll(fd: try Self.connect(port), query: Self.encoded($0), from: from) }
    }

    deinit {
        for poll in polls { close(poll.fd) }
    }

    /// `text` as JavaScript's `encodeURIComponent` writes it.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")) ?? text
    }

    /// Sends every poll, then answers and re-sends them on a thread of their own until ``stop()``.
    func start() {
        for index in polls.indices { send(index) }
        let thread = Thread { [self] in loop() }
        self.thread = thread
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    /// The answers received since the last call.
    func takeAnswers() -> [Answer] {
        answers.withLock { answers in
            defer { answers = [] }
            return answers
        }
    }

    private func loop() {
        var descriptors = polls.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !stopped.load(ordering: .relaxed) {
            guard Glibc.poll(&descriptors, nfds_t(descriptors.count), 100) > 0 else { continue }
            // Every answer that this wake-up found arrived by now: the client's own parsing is not counted.
            let arrived = ContinuousClock.now
            for index in descriptors.indices where descriptors[index].revents != 0 {
                descriptors[index].revents = 0
                let count = chunk.withUnsafeMutableBytes { recv(polls[index].fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { continue }
                polls[index].buffer += chunk[0..<count]
                guard let (status, body) = Self.response(in: &polls[index].buffer) else { continue }
                let at = arrived
                if status == 200, case .object(let diff)? = try? JSONReader().read(body), case .number(let to)? = diff["to"], let revision = to.intValue {
                    polls[index].from = revision
                    let changed = Self.hasChanges(diff)
                    answers.withLock { $0.append(Answer(at: at, changed: changed)) }
                }
                send(index)
            }
        }
    }

    private func send(_ index: Int) {
        let request = "GET /v1/lists/\(list)/diff?from=\(polls[index].from)&q=\(polls[index].query)&wait=600&cursor=2000000000 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n"
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(polls[index].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Takes one whole response (a `Content-Length` body) off the front of `buffer`: its status and body.
    private static func response(in buffer: inout [UInt8]) -> (Int, [UInt8])? {
        guard let end = buffer.firstRange(of: [13, 10, 13, 10])?.upperBound else { return nil }
        let head = String(decoding: buffer[0..<end], as: UTF8.self).lowercased()
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        guard buffer.count >= end + length else { return nil }
        let body = Array(buffer[end..<(end + length)])
        buffer.removeFirst(end + length)
        return (status, body)
    }

    /// Whether a batch diff changes anything (sections or items).
    private static func hasChanges(_ diff: JSONObject) -> Bool {
        for part in ["sections", "items"] {
            guard case .object(let changes)? = diff[part] else { continue }
            for (_, value) in changes.entries { if case .array(let list) = value, !list.isEmpty { return true } }
        }
        return false
    }

    private static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchHTTPClient.Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw BenchHTTPClient.Failure(description: "connect failed")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
}
