import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into addresses. A protocol so that tests can make a name resolve wherever they need.
public protocol AddressResolving: Sendable {
    /// The addresses `host` resolves to (an address literal resolves to itself). Blocking, at most
    /// `timeoutSeconds`.
    /// - Throws: `SourceFetchError.network` when the name does not resolve, `.timeout` when it takes too long.
    func resolve(_ host: String, timeoutSeconds: Double) throws(SourceFetchError) -> [IPAddress]
}

/// The system's resolver (`getaddrinfo`), as the connection itself would use, with a deadline: `getaddrinfo` has
/// none of its own (a lost reply costs the resolver's 5 s retry), so each lookup runs on a thread of its own that
/// the caller stops waiting for. Lookups still running are bounded: past `maximumPending`, a new one fails at once.
public final class SystemAddressResolver: AddressResolving {
    private let pending = Atomic<Int>(0)
    public let maximumPending: Int

    public init(maximumPending: Int = 32) {
        self.maximumPending = maximumPending
    }

    public func resolve(_ host: String, timeoutSeconds: Double) throws(SourceFetchError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        guard pending.add(1, ordering: .relaxed).newValue <= maximumPending else {
            pending.subtract(1, ordering: .relaxed)
            throw SourceFetchError(.network, "too many name lookups are under way; \(host) was not looked up")
        }
        let outcome = LookupOutcome()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            let result = Result { () throws(SourceFetchError) in try Self.lookUp(host) }
            outcome.value.withLock { $0 = result }
            pending.subtract(1, ordering: .relaxed)
            done.signal()
        }
        guard done.wait(timeout: .now() + max(0.001, timeoutSeconds)) == .success, let result = outcome.value.withLock({ $0 }) else {
            throw SourceFetchError(.timeout, "looking up \(host) took longer than \(timeoutSeconds) s")
        }
        return try result.get()
    }

    /// One `getaddrinfo`.
    private static func lookUp(_ host: String) throws(SourceFetchError) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw SourceFetchError(.network, "\(host) does not resolve: \(reason)")
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = Self.address(entry.pointee), !addresses.contains(address) { addresses.append(address) }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    private static func address(_ info: addrinfo) -> IPAddress? {
        guard let raw = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { IPAddress(ipv4: $0[0], $0[1], $0[2], $0[3]) }
            }
        case AF_INET6:
            return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }
}

/// A lookup's result, handed from its thread.
private final class LookupOutcome: Sendable {
    let value = Mutex<Result<[IPAddress], SourceFetchError>?>(nil)
}
