import Glibc

func usleepShim(_ us: UInt32) { usleep(us) }

/// Runs `body` on a new detached thread.
func runOnThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    var thread = pthread_t()
    let arg = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(&thread, nil, { arg in
        Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
        return nil
    }, arg)
    pthread_detach(thread)
}

/// A monotonic clock in seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
