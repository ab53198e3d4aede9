import Glibc

/// Which threads are event-loop threads, for the checks of the threading model: loop-only code asserts it runs on
/// its own loop (``EventLoop`` checks that itself), and ``isCurrent`` tells code that may block (a store, a
/// rebuild, a compression) that it was called on a loop: the service hands it to the engine's `EventLoopCheck`.
public enum EventLoopThread {
    /// A thread-specific marker set by each loop thread when it starts.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Marks the calling thread as an event loop's thread (for as long as it lives).
    static func markCurrent() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Whether the calling thread runs an event loop.
    public static var isCurrent: Bool { pthread_getspecific(key) != nil }
}
