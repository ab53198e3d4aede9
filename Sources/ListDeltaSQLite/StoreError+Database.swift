import GRDB
import ListDeltaStorage

extension StoreError {
    /// Runs `body` and converts any error it throws into a ``StoreError``.
    ///
    /// A ``StoreError`` passes through unchanged. A GRDB `DatabaseError` keeps only its result code and SQLite's
    /// message (never SQL arguments, which may hold blob bytes). Other errors keep only their type name.
    static func catching<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(describing: error)
        }
    }

    /// A ``StoreError/database(_:)`` that describes `error` without leaking stored data.
    init(describing error: any Error) {
        if let error = error as? DatabaseError {
            self = .database("SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "no message")")
        } else {
            self = .database("\(type(of: error))")
        }
    }
}
