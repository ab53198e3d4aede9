import Glibc

/// Runs `body` on a new detached thread (none of Swift concurrency's: it may block).
public func runOnThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let argument = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(&thread, nil, { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
    }, argument)
    pthread_detach(thread)
}
