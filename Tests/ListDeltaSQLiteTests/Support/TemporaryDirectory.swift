import Foundation
import ListDeltaSQLite
import ListDeltaStorage

/// Runs `body` with a fresh, empty directory that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("ListDeltaSQLiteTests-\(UUID().uuidString)")
        .path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Runs `body` with a store opened on a fresh temporary directory.
func withStore<T>(retention: Int = 1000, _ body: (SQLiteStore, SQLiteStoreConfiguration) throws -> T) throws -> T {
    try withTemporaryDirectory { path in
        var configuration = SQLiteStoreConfiguration(directory: path + "/data")
        configuration.retention = retention
        let store = try SQLiteStore(configuration: configuration)
        return try body(store, configuration)
    }
}
