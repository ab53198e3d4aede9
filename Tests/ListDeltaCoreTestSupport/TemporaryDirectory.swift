import Foundation

/// A fresh, empty directory of its own under the system's temporary directory, removed with everything in it when
/// released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "listdelta-test") throws {
        path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs `body` with the path of a fresh ``TemporaryDirectory``, which is removed once `body` returns.
public func withTemporaryDirectory<T>(prefix: String = "listdelta-test", _ body: (String) throws -> T) throws -> T {
    let directory = try TemporaryDirectory(prefix: prefix)
    return try withExtendedLifetime(directory) { try body(directory.path) }
}
