import Foundation
import ListDeltaCore
import Synchronization
@testable import ListDeltaKit

/// URLSession with faults a test turns on and off: offline (every request fails at once), held polls (a follower
/// falls behind), answers to writes dropped after the server got them, or a share of them dropped at random. It
/// records every write it sent.
final class FaultyTransport: ListTransport {
    struct SentWrite: Equatable {
        var method: String
        var key: String
        var body: String
    }

    private struct Faults {
        var offline = false
        var holdPolls = false
        var dropAnswers = 0
        var failWrites: [Int] = []
        var dropShare = 0.0
        var random = SplitMix64(seed: 7)
        var sent: [SentWrite] = []
        var requests = 0
    }

    private let real = URLSessionTransport()
    private let faults = Mutex(Faults())

    init(offline: Bool = false, dropShare: Double = 0, seed: UInt64 = 7) {
        faults.withLock {
            $0.offline = offline
            $0.dropShare = dropShare
            $0.random = SplitMix64(seed: seed)
        }
    }

    var offline: Bool {
        get { faults.withLock { $0.offline } }
        set { faults.withLock { $0.offline = newValue } }
    }

    /// While set, long polls and event streams wait, and so do the answers of polls in flight (the follower holds
    /// what it had).
    var holdPolls: Bool {
        get { faults.withLock { $0.holdPolls } }
        set { faults.withLock { $0.holdPolls = newValue } }
    }

    /// The next `count` writes reach the server, and their answers are lost.
    func dropAnswers(_ count: Int) { faults.withLock { $0.dropAnswers = count } }

    /// The next writes are answered with these statuses (and `Retry-After: 0`) without reaching the server.
    func failWrites(_ statuses: [Int]) { faults.withLock { $0.failWrites = statuses } }

    /// The writes sent, in order.
    var sent: [SentWrite] { faults.withLock { $0.sent } }
    /// Requests sent (or failed offline) so far.
    var requests: Int { faults.withLock { $0.requests } }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        try await admit(request)
        let isWrite = request.method != "GET"
        if isWrite {
            let write = SentWrite(method: request.method, key: request.headers["Idempotency-Key"] ?? "", body: String(decoding: request.body ?? [], as: UTF8.self))
            let failure: Int? = faults.withLock { faults in
                faults.sent.append(write)
                return faults.failWrites.isEmpty ? nil : faults.failWrites.removeFirst()
            }
            if let failure {
                return TransportResponse(status: failure, headers: ["retry-after": "0"], body: Array("{\"status\":\(failure)}".utf8))
            }
        }
        let response = try await real.send(request)
        try await holdIfPoll(request) // a poll answered while polls are held is held too
        let drop = isWrite && faults.withLock { faults in
            if faults.dropAnswers > 0 {
                faults.dropAnswers -= 1
                return true
            }
            return Double(faults.random.next() % 1_000) < faults.dropShare * 1_000
        }
        if drop { throw TransportError("the connection dropped before the answer") }
        return response
    }

    func stream(_ request: TransportRequest) async throws(TransportError) -> TransportStream {
        try await admit(request)
        return try await real.stream(request)
    }

    private func admit(_ request: TransportRequest) async throws(TransportError) {
        faults.withLock { $0.requests += 1 }
        if offline { throw TransportError("offline") }
        try await holdIfPoll(request)
        if offline { throw TransportError("offline") }
    }

    private func holdIfPoll(_ request: TransportRequest) async throws(TransportError) {
        let isPoll = request.url.path.hasSuffix("/diff") || request.url.path.hasSuffix("/events")
        while isPoll, holdPolls {
            do { try await Task.sleep(for: .milliseconds(10)) } catch { throw TransportError("cancelled") }
        }
    }
}
