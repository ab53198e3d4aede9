import ListDeltaTestSupport
#if canImport(Glibc)
import Foundation
import Glibc

/// A loopback TCP relay in front of a server: it forwards every connection, and `dropAll()` cuts the ones open
/// (both ways, like a network that failed), while new connections still get through.
final class TCPRelay: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let target: Int
    private let lock = NSLock()
    private var open: Set<Int32> = []
    private var closed = false

    init(to targetPort: Int) throws {
        target = targetPort
        let listener = socket(AF_INET, Self.streamType, 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw LiveServerError("relay: cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit {
        close()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Client connections relayed now.
    var openConnections: Int { lock.withLock { open.count } }

    /// Cuts every connection open now. Under the lock, which the pumps hold to close their sockets: a socket shut
    /// down here is still open, never a descriptor number the system has given to another socket since.
    func dropAll() {
        lock.withLock {
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Stops accepting and cuts everything.
    func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        lock.unlock()
        guard !wasClosed else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        dropAll()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Self.streamType, 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(client)
                Glibc.close(upstream)
                continue
            }
            lock.lock()
            open.formUnion([client, upstream])
            lock.unlock()
            let connection = Connection(client, upstream)
            Thread.detachNewThread { [self] in pump(from: client, to: upstream, connection) }
            Thread.detachNewThread { [self] in pump(from: upstream, to: client, connection) }
        }
    }

    /// The two sockets of one relayed connection, closed by whichever pump ends last (so neither writes to a
    /// descriptor number the system has already given to another socket).
    private final class Connection: @unchecked Sendable {
        let sockets: (Int32, Int32)
        var running = 2
        init(_ first: Int32, _ second: Int32) { sockets = (first, second) }
    }

    private func pump(from source: Int32, to sink: Int32, _ connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(source, &buffer, buffer.count)
            if count <= 0 { break }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes { send(sink, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { break }
                sent += written
            }
            if sent < count { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(sink, Int32(SHUT_RDWR))
        lock.withLock {
            connection.running -= 1
            guard connection.running == 0 else { return }
            open.remove(connection.sockets.0)
            open.remove(connection.sockets.1)
            Glibc.close(connection.sockets.0)
            Glibc.close(connection.sockets.1)
        }
    }

    private static var streamType: Int32 { Int32(SOCK_STREAM.rawValue) }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
#endif
