public import Foundation
import ListDeltaCore

/// A ``ListStorage`` of one JSON file per list (`<listID>.json`) in a directory, each written atomically: a new
/// file beside it, then a rename over it, so a crash leaves the old state or the new one, never half of either.
///
/// List ids are of `A-Z a-z 0-9 . _ -` and never `.` or `..` (docs/api.md), so they are file names as they are.
public struct FileListStorage: ListStorage {
    /// The directory of the files; created on the first save.
    public let directory: URL

    /// A storage in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The file of `listID`.
    public func file(for listID: String) -> URL {
        directory.appendingPathComponent(listID + ".json", isDirectory: false)
    }

    /// What the file holds; `nil` when there is none. A file that is not a stored list (another version, a file
    /// written by something else) is moved aside to `<listID>.json.unreadable`, kept for inspection, and `nil`
    /// returned, so the writer starts afresh rather than never store again.
    /// - Throws: when the file cannot be read or moved.
    public func load(listID: String) async throws -> StoredList? {
        let file = file(for: listID)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let bytes = try Data(contentsOf: file)
        do {
            return try StoredList(json: JSONReader(maximumDepth: 512).read(Array(bytes)))
        } catch {
            let aside = file.appendingPathExtension("unreadable")
            try? FileManager.default.removeItem(at: aside)
            try FileManager.default.moveItem(at: file, to: aside)
            return nil
        }
    }

    public func save(_ state: StoredList) async throws {
        guard ListDocument.isValidID(state.listID) else { throw ListWriteError.invalid(ListDocument.idRule) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(JSONWriter.bytes(of: state.jsonValue)).write(to: file(for: state.listID), options: .atomic)
    }
}
