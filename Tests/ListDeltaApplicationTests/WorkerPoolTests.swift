import Dispatch
import Foundation
import ListDeltaCoreTestSupport
import Synchronization
import Testing
@testable import ListDeltaApplication

@Suite struct WorkerPoolTests {
    @Test func refusesPastItsQueueLimitAndRunsTheRest() {
        let pool = WorkerPool(name: "t", threads: 1, queueLimit: 2)
        defer { pool.shutdown() }
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let ran = Mutex<[Int]>([])
        #expect(pool.submit { started.signal(); gate.wait() })
        started.wait()
        #expect(pool.submit { ran.withLock { $0.append(1) } })
        #expect(pool.submit { ran.withLock { $0.append(2) } })
        #expect(!pool.submit { ran.withLock { $0.append(3) } })
        pool.execute { ran.withLock { $0.append(4) } }  // a continuation is never refused
        #expect(pool.usage.rejected == 1)
        gate.signal()
        #expect(eventually { ran.withLock { $0 } == [1, 2, 4] })
    }

    @Test func asyncWorkRunsOnItsThreads() async {
        let pool = WorkerPool(name: "exec", threads: 2, queueLimit: 10)
        defer { pool.shutdown() }
        let onWorker = await withTaskExecutorPreference(pool) { await isOnWorker(of: pool) }
        #expect(onWorker)
        #expect(!pool.isCurrentThreadAWorker)
    }

    @Test func serialQueueKeepsOrderAcrossWorkers() {
        let pool = WorkerPool(name: "s", threads: 4, queueLimit: 10)
        defer { pool.shutdown() }
        let queue = SerialQueue(pool: pool)
        let seen = Mutex<[Int]>([])
        for index in 0..<500 { queue.async { seen.withLock { $0.append(index) } } }
        #expect(eventually { seen.withLock { $0.count } == 500 })
        #expect(seen.withLock { $0 } == Array(0..<500))
    }
}

/// Nonisolated async work: it runs on the task's preferred executor.
nonisolated private func isOnWorker(of pool: WorkerPool) async -> Bool { pool.isCurrentThreadAWorker }
