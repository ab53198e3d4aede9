import Glibc

/// The few POSIX calls the server needs, kept in a file that does not import CLibevent
/// (both modules declare `fd_set`, and clang refuses the mix in one file).
enum POSIX {
    static let sigint = SIGINT
    static let sigterm = SIGTERM

    /// Raises the soft limit on open files to at least `needed`, up to the hard limit; returns the soft limit in
    /// force afterwards (which is below `needed` when the hard limit is).
    static func raiseOpenFileLimit(to needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return needed }
        if limit.rlim_cur < rlim_t(needed) {
            var raised = limit
            raised.rlim_cur = min(rlim_t(needed), limit.rlim_max)  // RLIM_INFINITY is the largest value
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The calling thread's id.
    static func threadID() -> UInt { UInt(pthread_self()) }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts a joinable thread running `body`; `nil` when the thread could not be created.
    static func spawn(_ body: @escaping () -> Void) -> UInt? {
        var thread = pthread_t()
        let arg = Unmanaged.passRetained(Body(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { arg in
            Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, arg)
        if rc != 0 {
            Unmanaged<Body>.fromOpaque(arg).release()
            return nil
        }
        return UInt(thread)
    }

    static func join(_ thread: UInt) { pthread_join(pthread_t(thread), nil) }

    static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }

    static func sleep(microseconds: UInt32) { usleep(microseconds) }

    /// A `sockaddr_in`/`sockaddr_in6` for `host:port` as raw bytes, or `nil` for an unparsable host.
    static func socketAddress(host: String, port: Int) -> [UInt8]? {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// The local port of a bound socket.
    static func localPort(fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer -> Int in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// A monotonic clock in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

extension POSIX {
    /// Peeks at a socket that became readable: `true` when the peer closed it (EOF or error), `false` when data
    /// is waiting, `nil` when nothing is there yet.
    static func peerClosed(fd: Int32) -> Bool? {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n == 0 { return true }
        if n > 0 { return false }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? nil : true
    }
}

extension POSIX {
    /// A non-blocking, close-on-exec pipe as `(read, write)`, or `nil`.
    static func makeWakePipe() -> (Int32, Int32)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }

    /// Writes one byte to a wake pipe (a full pipe already means "wake up").
    static func signalWake(fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    /// Reads a wake pipe until it is empty.
    static func drainWake(fd: Int32) {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    static func close(fd: Int32) { _ = Glibc.close(fd) }

    /// Sends small segments at once (`TCP_NODELAY`): a response's last segment must not wait for the peer to
    /// acknowledge the previous one, which a client delaying its ACKs holds back for up to 40 ms.
    static func disableNagle(fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Best effort: writes `bytes` to a socket without blocking (what does not fit is dropped).
    static func sendNow(fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }
}

extension POSIX {
    /// The client a connected socket's peer is (see ``ClientKey``); `nil` for a socket that is not IPv4 or IPv6.
    static func peerClient(fd: Int32) -> ClientKey? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard got == 0 else { return nil }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer -> ClientKey? in
            if family == sa_family_t(AF_INET) {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    ClientKey(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
                }
            }
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { ClientKey(ipv6: $0) }
                }
            }
            return nil
        }
    }
}
