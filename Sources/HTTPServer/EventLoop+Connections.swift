import CLibevent
import Metrics
import Synchronization

/// Accepting, counting and sweeping connections (see ``Connection``).
extension EventLoop {
    /// The accept hook (`evhttp_set_bevcb`): a bufferevent for evhttp's new connection, counted and watched.
    func accept(_ base: OpaquePointer) -> OpaquePointer? {
        guard let bev = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        let count = context.connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
        let connection = Connection(loop: self, bufferEvent: bev, openConnections: count)
        connections[bev] = connection
        connection.startWatching()
        // Ours until `bindAccepted` has seen what evhttp made of it (evhttp frees it on a failed setup).
        bufferevent_incref(bev)
        accepted.append(connection)
        if accepted.count == 1, let bindEvent { event_active(bindEvent, 0, 0) }
        return bev
    }

    /// Runs in the same loop pass as the accept, after evhttp set up its connection: binds each one's
    /// `evhttp_connection`, and closes those that were beyond the hard cap when accepted.
    func bindAccepted() {
        let batch = accepted
        accepted.removeAll(keepingCapacity: true)
        for connection in batch {
            let bev = connection.bufferEvent
            var evcon: UnsafeMutableRawPointer?
            bufferevent_getcb(bev, nil, nil, nil, &evcon)
            if let evcon {
                let fd = bufferevent_getfd(bev)
                connection.bind(OpaquePointer(evcon))
                if connection.overHardCap {
                    connection.close()
                } else if fd >= 0 {
                    POSIX.disableNagle(fd: Int32(fd))
                    admitClient(connection, fd: Int32(fd))
                }
            } else {
                // evhttp failed to set it up and closed the socket itself: the bufferevent must not close that
                // descriptor number again when it is freed (it may belong to a newer connection by now).
                connection.stopWatching()
                bufferevent_setfd(bev, -1)
                forget(connection)
            }
            bufferevent_decref(bev)
        }
    }

    /// Counts `connection` against its client's limit, or refuses it (429, closed) when the client is at it.
    private func admitClient(_ connection: Connection, fd: Int32) {
        let clients = context.clients
        guard clients.limit > 0, let client = POSIX.peerClient(fd: fd) else { return }
        if clients.admit(client) {
            connection.client = client
        } else {
            context.refusedClientConnections.add(1, ordering: .relaxed)
            context.refusedClientConnectionsCounter.increment()
            connection.refuseOverClientLimit()
        }
    }

    /// Closes `connection` in the next loop pass, unless it closed by then.
    func closeSoon(_ connection: Connection) {
        var now = timeval(tv_sec: 0, tv_usec: 0)
        let retained = Unmanaged.passRetained(connection)
        let scheduled = event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, arg in
            guard let arg else { return }
            let connection = Unmanaged<Connection>.fromOpaque(arg).takeRetainedValue()
            if connection.isOpen { connection.close() }
        }, retained.toOpaque(), &now)
        if scheduled != 0 { retained.release() }
    }

    /// Uncounts a connection that closed.
    func forget(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.bufferEvent) != nil else { return }
        let fd = Int(connection.descriptor)
        if fd >= 0, fd < connectionsByDescriptor.count, connectionsByDescriptor[fd] === connection {
            connectionsByDescriptor[fd] = nil
        }
        context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
    }

    /// The connection a request arrived on: by descriptor, else (its first request) by bufferevent.
    func connection(for req: OpaquePointer) -> Connection? {
        guard let evcon = evhttp_request_get_connection(req), let bev = evhttp_connection_get_bufferevent(evcon) else {
            return nil
        }
        let fd = Int(bufferevent_getfd(bev))
        if fd >= 0, fd < connectionsByDescriptor.count, let connection = connectionsByDescriptor[fd],
            connection.bufferEvent == bev
        {
            return connection
        }
        guard let connection = connections[bev] else { return nil }
        if connection.evcon == nil { connection.bind(evcon) }
        if fd >= 0 {
            if fd >= connectionsByDescriptor.count {
                connectionsByDescriptor.append(contentsOf: repeatElement(nil, count: fd + 1 - connectionsByDescriptor.count))
            }
            connectionsByDescriptor[fd] = connection
            connection.descriptor = Int32(fd)
        }
        return connection
    }

    /// Once a second: ends connections whose request head has been arriving for longer than the head deadline,
    /// or whose whole request for longer than the request deadline (a client trickling bytes restarts the idle
    /// timeout with each one, but not these clocks).
    func sweepLateRequests() {
        let now = Clock.nanoseconds()
        let configuration = context.configuration
        let requestLimit = UInt64(configuration.requestTimeoutSeconds) * 1_000_000_000
        let headLimit = UInt64(configuration.headerTimeoutSeconds) * 1_000_000_000
        var late: [(Connection, String)] = []
        for connection in connections.values {
            guard let since = connection.receivingSince else { continue }
            let lateHead = connection.headIsLate(now: now, limit: headLimit)
            guard lateHead || now &- since > requestLimit else { continue }
            // Bytes of a next request can arrive while our last answer is still being sent (libevent keeps
            // reading then); that request's clock starts once the answer is out.
            if connection.isSendingAnswer {
                connection.restartRequestClock(at: now)
            } else if lateHead {
                late.append((connection, "The request's head did not arrive within \(configuration.headerTimeoutSeconds) s."))
            } else {
                late.append((connection, "The request did not arrive within \(configuration.requestTimeoutSeconds) s."))
            }
        }
        for (connection, detail) in late { connection.abandonLateRequest(detail) }
    }
}
