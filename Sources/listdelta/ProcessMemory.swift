import Dispatch
import Glibc

/// How the `listdelta serve` process asks glibc's allocator to give memory back, so that RSS follows what the
/// service holds (its caches are bounded) rather than the peak of a burst.
///
/// - At most 4 allocation arenas: glibc's default, 8 per core, keeps a heap per thread that once allocated, each
///   holding freed memory of its own.
/// - A fixed mmap threshold of 256 KiB: large blocks (request bodies, rendered documents, compressed bodies) are
///   mapped and unmapped on their own. glibc otherwise raises the threshold after freeing a large block, up to
///   32 MiB, and keeps later ones in the heaps.
/// - Every 10 s, `malloc_trim(0)` returns the heaps' free pages (a few milliseconds, off the event loops).
enum ProcessMemory {
    static func configure() {
        _ = glibcMallopt(arenaMax, 4)
        _ = glibcMallopt(mmapThreshold, 256 * 1024)
        _ = glibcMallopt(trimThreshold, 1024 * 1024)
        trimPeriodically(every: 10)
    }

    // <malloc.h> is not part of Swift's Glibc module: its two functions and three constants, as glibc defines them.
    private static let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
    private static let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
    private static let arenaMax: Int32 = -8  // M_ARENA_MAX

    private static func trimPeriodically(every seconds: Int) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "listdelta.memory", qos: .utility))
        timer.schedule(deadline: .now() + .seconds(seconds), repeating: .seconds(seconds), leeway: .seconds(1))
        timer.setEventHandler { _ = glibcMallocTrim(0) }
        timer.activate()
        retained = timer
    }

    /// The timer, kept for the life of the process.
    nonisolated(unsafe) private static var retained: (any DispatchSourceTimer)?
}

@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32

@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
