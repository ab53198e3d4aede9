import CLibevent

/// One client connection seen by a loop; loop-confined.
///
/// Counted against ``HTTPServerConfiguration/maxConnections`` from its first request until libevent's close
/// callback, which also reports a disconnect to the request that is parked or streaming on it.
final class Connection {
    let evcon: OpaquePointer
    let remoteAddress: String
    /// Whether it was over the connection limit when first seen (every answer then closes it).
    let overLimit: Bool
    /// The request being answered on this connection (HTTP/1.1 answers one at a time).
    var current: RequestContext?

    init(evcon: OpaquePointer, remoteAddress: String, overLimit: Bool) {
        self.evcon = evcon
        self.remoteAddress = remoteAddress
        self.overLimit = overLimit
    }
}

extension EventLoop {
    /// The connection of `req`, registered (counted, close callback set) on first sight.
    func connection(for req: OpaquePointer) -> Connection? {
        guard let evcon = evhttp_request_get_connection(req) else { return nil }
        if let existing = connections[evcon] { return existing }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(evcon, &address, &port)
        let host = address.map { String(cString: $0) } ?? "?"
        let count = context.connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
        let connection = Connection(
            evcon: evcon, remoteAddress: "\(host):\(port)", overLimit: count > context.configuration.maxConnections)
        connections[evcon] = connection
        evhttp_connection_set_closecb(evcon, { evcon, arg in
            guard let evcon, let arg else { return }
            Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().connectionClosed(evcon)
        }, Unmanaged.passUnretained(self).toOpaque())
        return connection
    }

    /// libevent's close callback: uncount, and tell a pending request its client is gone.
    func connectionClosed(_ evcon: OpaquePointer) {
        guard let connection = connections.removeValue(forKey: evcon) else { return }
        context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
        if let request = connection.current {
            connection.current = nil
            request.clientClosed()
        }
    }
}
