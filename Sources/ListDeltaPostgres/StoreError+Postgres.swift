import ListDeltaStorage
import PostgresNIO

extension StoreError {
    /// A ``StoreError`` that says what went wrong without leaking stored data: a database that cannot be reached
    /// (no connection, a closed one, a server shutting down or refusing connections, a cancelled wait) is
    /// ``StoreError/unavailable(_:)``; an error the server reports is ``StoreError/database(_:)`` with its SQLSTATE
    /// and message (never the query's arguments).
    init(postgres error: any Error) {
        if let error = error as? StoreError {
            self = error
            return
        }
        if let transaction = error as? PostgresTransactionError {
            // What failed first says why: BEGIN, the transaction's own statements (or its decision), or COMMIT.
            let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError ?? transaction.rollbackError
            self = cause.map { StoreError(postgres: $0) } ?? .unavailable("the transaction failed")
            return
        }
        guard let error = error as? PSQLError else {
            self = error is CancellationError ? .unavailable("the call was cancelled") : .unavailable("\(type(of: error))")
            return
        }
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else {
            self = .unavailable("\(error.code)")
            return
        }
        let message = error.serverInfo?[.message] ?? "no message"
        // 55P03: lock_timeout passed while waiting for a list's advisory lock (another instance holds it). Class 08:
        // connection exceptions; 57P01-57P03: the server is shutting down or starting; 53300: too many connections;
        // 40001/40P01: serialization failure or deadlock, worth retrying.
        if state == "55P03" {
            self = .busy("another writer held the list past the deadline")
        } else if state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300", "40001", "40P01"].contains(state) {
            self = .unavailable("PostgreSQL \(state): \(message)")
        } else {
            self = .database("PostgreSQL \(state): \(message)")
        }
    }
}
