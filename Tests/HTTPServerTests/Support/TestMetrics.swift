import CoreMetrics
import Synchronization

/// Records counter increments and timer values by label and dimensions.
final class TestMetrics: MetricsFactory, Sendable {
    static let shared: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()

    let values = Mutex<[String: Int64]>([:])

    static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        label + "|" + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
    }

    final class Handler: CounterHandler, RecorderHandler, TimerHandler, Sendable {
        let key: String
        let owner: TestMetrics
        init(key: String, owner: TestMetrics) { self.key = key; self.owner = owner }
        func increment(by amount: Int64) { owner.values.withLock { $0[key, default: 0] += amount } }
        func reset() {}
        func record(_ value: Int64) { owner.values.withLock { $0[key, default: 0] += 1 } }
        func record(_ value: Double) { owner.values.withLock { $0[key, default: 0] += 1 } }
        func recordNanoseconds(_ duration: Int64) { owner.values.withLock { $0[key, default: 0] += 1 } }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        Handler(key: Self.key(label, dimensions), owner: self)
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Handler(key: Self.key(label, dimensions), owner: self)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        Handler(key: Self.key(label, dimensions), owner: self)
    }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    func value(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        values.withLock { $0[Self.key(label, dimensions)] ?? 0 }
    }
}
