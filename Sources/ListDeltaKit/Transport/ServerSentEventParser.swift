/// One event of a `text/event-stream`.
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `message` when the event names none.
    public var name: String
    /// The `data:` lines, joined with line feeds.
    public var data: String
    /// The last `id:` seen on the stream so far (the stream's "last event ID"), or `nil`.
    public var id: String?

    /// Creates an event.
    public init(name: String = "message", data: String, id: String? = nil) {
        self.name = name
        self.data = data
        self.id = id
    }
}

/// An event stream whose event grew past the parser's bound.
public struct EventTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bound, in bytes.
    public var limit: Int
    public var description: String { "an event of the stream is larger than \(limit) bytes" }
}

/// Reads `text/event-stream` bytes into events, as the WHATWG HTML standard's parser does: lines end with CRLF,
/// LF or CR (also across chunk boundaries); `:` starts a comment; one space after a field's colon is dropped;
/// a blank line dispatches the event, unless it has no data; `retry:` and unknown fields are ignored; an `id`
/// containing NUL is ignored.
public struct ServerSentEventParser: Sendable {
    /// The most bytes one event (its lines together) may take before `feed` throws.
    public let maximumEventBytes: Int

    private var line: [UInt8] = []
    private var afterCR = false
    private var name = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var eventBytes = 0
    private var lastEventID: String?

    /// Creates a parser; `maximumEventBytes` bounds the memory one event may take.
    public init(maximumEventBytes: Int = 64 << 20) {
        self.maximumEventBytes = maximumEventBytes
    }

    /// Reads `bytes` and returns the events they complete, in order.
    /// - Throws: `EventTooLarge` when an event grows past `maximumEventBytes`.
    /// - Complexity: O(*n*) in the number of bytes.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(EventTooLarge) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCR = true
                if let event = endLine() { events.append(event) }
            case UInt8(ascii: "\n"):
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
                eventBytes += 1
                if eventBytes > maximumEventBytes { throw EventTooLarge(limit: maximumEventBytes) }
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let field = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var valueStart = colon.map { line.index(after: $0) } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch field {
        case "event":
            name = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            name = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventBytes = 0
        }
        guard hasData else { return nil }
        return ServerSentEvent(
            name: name.isEmpty ? "message" : name, data: String(decoding: data, as: UTF8.self), id: lastEventID)
    }
}
