public import ListDeltaCore

/// Where a ``ListWriter`` keeps, across launches, the server's document it holds and the writes not yet
/// acknowledged, so that a new writer on the same storage shows them at once and sends them.
///
/// ``FileListStorage`` keeps one file per list; an app may keep them anywhere else (a database, the keychain).
public protocol ListStorage: Sendable {
    /// What is stored for `listID`, or `nil` when nothing is.
    /// - Throws: when the store cannot be read. The writer then never writes over it.
    func load(listID: String) async throws -> StoredList?

    /// Stores `state` for its list, replacing what was stored, as one change (all of it or none).
    func save(_ state: StoredList) async throws
}

/// What a writer stores for one list. Its JSON form is client.js's (`{"version": 1, "listID", "revision",
/// "document", "pending", "acknowledged"}`).
public struct StoredList: Sendable, Equatable {
    /// The list.
    public var listID: String
    /// The server's document the writer held (no pending write on top), or `nil` before it held one.
    public var document: ListDocument?
    /// The writes not yet acknowledged, in order, with the key and request each was last sent with.
    public var pending: [PendingWrite]
    /// Writes acknowledged at a revision later than `document`'s: shown on top of it until it reaches theirs.
    public var acknowledged: [AcknowledgedWrite]

    /// A stored state.
    public init(listID: String, document: ListDocument?, pending: [PendingWrite], acknowledged: [AcknowledgedWrite] = []) {
        self.listID = listID
        self.document = document
        self.pending = pending
        self.acknowledged = acknowledged
    }

    /// The JSON form.
    public var jsonValue: JSONValue {
        [
            "version": 1, "listID": .string(listID),
            "revision": document.map { .number(JSONNumber($0.revision)) } ?? .null,
            "document": document?.jsonValue ?? .null,
            "pending": .array(pending.map(\.jsonValue)),
            "acknowledged": .array(acknowledged.map(\.jsonValue)),
        ]
    }

    /// Reads the JSON form.
    /// - Throws: ``ListWriteError/invalid(_:)`` when it is not one (another version, say).
    public init(json: JSONValue) throws(ListWriteError) {
        guard let object = json.objectValue, object["version"] == 1, let listID = object["listID"]?.stringValue else {
            throw .invalid("not a stored list of version 1")
        }
        self.listID = listID
        switch object["document"] {
        case nil, .null?: document = nil
        case let value?:
            do { document = try ListDocument(servedJSON: value) } catch { throw .invalid("the stored document: \(error)") }
        }
        pending = try (object["pending"]?.arrayValue ?? []).map { value throws(ListWriteError) in try PendingWrite(json: value) }
        acknowledged = try (object["acknowledged"]?.arrayValue ?? []).map { value throws(ListWriteError) in
            try AcknowledgedWrite(json: value)
        }
    }
}

/// A write not yet acknowledged: the write, and the key and request it was last sent with (`nil` before it was
/// sent, or after a guard failed and it is to be built again).
public struct PendingWrite: Sendable, Equatable {
    /// The write.
    public var write: ListWrite
    /// Its current `Idempotency-Key`.
    public var key: String?
    /// The request sent with `key`.
    public var request: WriteRequest?

    /// A pending write.
    public init(write: ListWrite, key: String? = nil, request: WriteRequest? = nil) {
        self.write = write
        self.key = key
        self.request = request
    }

    /// The write's JSON form with `key` and `request` members.
    public var jsonValue: JSONValue {
        var object = write.jsonValue.objectValue ?? JSONObject()
        object["key"] = key.map(JSONValue.string) ?? .null
        object["request"] = request?.jsonValue ?? .null
        return .object(object)
    }

    /// Reads the JSON form.
    /// - Throws: ``ListWriteError/invalid(_:)``.
    public init(json: JSONValue) throws(ListWriteError) {
        write = try ListWrite(json: json)
        key = json.objectValue?["key"]?.stringValue
        request = json.objectValue?["request"].flatMap(WriteRequest.init(json:))
        if key == nil || request == nil { (key, request) = (nil, nil) }
    }
}

/// A write the server acknowledged at `revision`.
public struct AcknowledgedWrite: Sendable, Equatable {
    /// The write.
    public var write: ListWrite
    /// The revision it made.
    public var revision: Int

    /// An acknowledged write.
    public init(write: ListWrite, revision: Int) {
        self.write = write
        self.revision = revision
    }

    /// The write's JSON form with a `revision` member.
    public var jsonValue: JSONValue {
        var object = write.jsonValue.objectValue ?? JSONObject()
        object["revision"] = .number(JSONNumber(revision))
        return .object(object)
    }

    /// Reads the JSON form.
    /// - Throws: ``ListWriteError/invalid(_:)``.
    public init(json: JSONValue) throws(ListWriteError) {
        write = try ListWrite(json: json)
        guard case .number(let number)? = json.objectValue?["revision"], let revision = number.intValue else {
            throw .invalid("a stored acknowledged write has a revision")
        }
        self.revision = revision
    }
}
