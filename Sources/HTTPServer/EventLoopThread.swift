import Glibc

/// Which threads are event-loop threads, for the debug-build assertions of the threading model: loop-only code
/// asserts it runs on its own loop (``EventLoop`` checks that itself), and code that may block (a store, a
/// rebuild, a compression) asserts with ``assertNotOnLoop(_:file:line:)`` that it never runs on any loop.
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

    /// Stops a debug build when called on an event loop's thread: `work` may block (disk, a lock held across a
    /// commit, a long computation) and belongs on a worker. Compiled out of release builds.
    @inlinable
    public static func assertNotOnLoop(_ work: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(!isCurrent, "\(work()) must not run on an event loop thread", file: file, line: line)
    }
}
