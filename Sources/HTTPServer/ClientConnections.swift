import Synchronization

/// Who a connection's client is, for ``HTTPServerConfiguration/maxConnectionsPerClient``: an IPv4 address, or an
/// IPv6 client's /64 network (one host usually holds a whole /64, so counting its addresses apart would be no
/// limit). An IPv4-mapped IPv6 peer counts as its IPv4 address.
struct ClientKey: Hashable, Sendable {
    /// IPv4: 0. IPv6: the network's 64 bits.
    let network: UInt64
    /// IPv4: the address with a marker bit above it, so no IPv6 network equals it. IPv6: 0.
    let host: UInt64

    /// An IPv4 client (`address` in host byte order).
    init(ipv4 address: UInt32) {
        self.init(network: 0, host: 1 << 32 | UInt64(address))
    }

    /// An IPv6 client, by the 16 bytes of its address.
    init(ipv6 bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        precondition(array.count == 16, "an IPv6 address has 16 bytes")
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        if array.prefix(12).elementsEqual(mappedPrefix) {
            self.init(ipv4: array[12...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        } else {
            self.init(network: array.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, host: 0)
        }
    }

    private init(network: UInt64, host: UInt64) {
        self.network = network
        self.host = host
    }
}

/// How many connections each client has open, over every loop of one server: the per-client limit.
final class ClientConnections: Sendable {
    private let counts = Mutex<[ClientKey: Int]>([:])
    /// The most connections per client; 0 admits every connection.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more connection of `client`; `false` (and nothing counted) when it has ``limit`` open already.
    /// - Complexity: O(1) expected, under one lock.
    func admit(_ client: ClientKey) -> Bool {
        counts.withLock { counts in
            let open = counts[client, default: 0]
            guard open < limit else { return false }
            counts[client] = open + 1
            return true
        }
    }

    /// Uncounts a connection that ``admit(_:)`` counted.
    func release(_ client: ClientKey) {
        counts.withLock { counts in
            guard let open = counts[client] else { return }
            counts[client] = open > 1 ? open - 1 : nil
        }
    }

    /// The clients with a connection open now (for tests and diagnostics).
    var clientCount: Int { counts.withLock { $0.count } }
}
