import CLibevent
import Glibc

/// A response's header fields, written into a request's evhttp output list in one of two ways
/// (``ResponseHeadWriting``):
///
/// - **plain**: every field is its own `evhttp_add_header` entry, as libevent's API intends (evhttp copies each
///   name and value, checks them, and prints each entry with its own `printf`);
/// - **single entry** (``LibeventCompatibility``, only on libevent versions it was checked against): one `Date`
///   entry whose value is the date followed by every other field as checked `\r\nName: value` lines, handed
///   over without a copy; the fields evhttp reads back (`Content-Length`, `Connection`, `Proxy-Connection`)
///   still get entries of their own.
///
/// Either way the same fields go out, checked the same way. The server always writes `Date` itself: a
/// handler's is dropped. So is a handler's `Transfer-Encoding` (evhttp chunks a stream itself), and a handler's
/// `Content-Length` unless the owner keeps it: a stream of known length, or a HEAD or 304 answer that states the
/// length of the body it leaves out. A field whose name is not an RFC 9110 token, or whose value holds CR, LF or
/// NUL, is dropped, as evhttp drops it: it could not be sent as one field.
///
/// - Complexity: O(*n*) in the bytes written. Single entry: one allocation (grown by doubling); plain: evhttp's
///   three per field.
struct ResponseHead: ~Copyable {
    private let output: UnsafeMutablePointer<evkeyvalq>
    /// The single entry's bytes; `nil` when writing plain entries.
    private var bytes: UnsafeMutablePointer<UInt8>?
    private var count = 0
    private var capacity: Int
    private let keepsContentLength: Bool

    /// Starts the head of a response in `output` (the request's output headers) with the `Date` value.
    /// - Parameters:
    ///   - writing: How fields become entries (the server resolves it once, at start).
    ///   - keepsContentLength: Whether a handler's `Content-Length` is sent (when the server writes none).
    init(into output: UnsafeMutablePointer<evkeyvalq>, date: String, writing: ResponseHeadWriting, keepsContentLength: Bool = false) {
        self.output = output
        self.keepsContentLength = keepsContentLength
        if writing == .singleEntry {
            capacity = 256
            bytes = UnsafeMutablePointer<UInt8>(OpaquePointer(malloc(256)!))
            var date = date
            date.withUTF8 { append($0) }
        } else {
            capacity = 0
            bytes = nil
            evhttp_add_header(output, "Date", date)
        }
    }

    deinit { free(bytes) }

    /// Adds a field, unless it is malformed or one the server writes itself (see the type's notes).
    /// - Returns: Whether the field is sent.
    @discardableResult
    mutating func add(_ name: String, _ value: String) -> Bool {
        var name = name, value = value
        let wellFormed = name.withUTF8 { name in value.withUTF8 { value in Self.isToken(name) && Self.isFieldValue(value) } }
        guard wellFormed else { return false }
        switch Self.kind(of: name) {
        case .date, .transferEncoding:
            return false
        case .contentLength where !keepsContentLength:
            return false
        case .plain where bytes != nil:
            name.withUTF8 { name in value.withUTF8 { value in appendLine(name, value) } }
            return true
        case .contentLength, .readByLibevent, .plain:
            // Its own entry: evhttp reads these back (and checks them again), or the head is written plain.
            return name.withCString { name in value.withCString { evhttp_add_header(output, name, $0) == 0 } }
        }
    }

    /// Adds a field the server itself writes, such as `Vary: Accept-Encoding` (copied as is: the caller vouches
    /// for both strings).
    mutating func addServerField(_ name: StaticString, _ value: StaticString) {
        guard bytes != nil else {
            evhttp_add_header(output, name.cString, value.cString)
            return
        }
        appendLine(
            UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount),
            UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }

    /// Finishes the head: in a single entry, hands it to evhttp as its `Date` entry.
    consuming func install() {
        guard bytes != nil else {
            discard self
            return
        }
        reserve(1)
        bytes![count] = 0
        let value = UnsafeMutableRawPointer(bytes!).assumingMemoryBound(to: CChar.self)
        let output = self.output
        discard self
        LibeventCompatibility.appendOwnedField(to: output, name: "Date", value: value)
    }

    // MARK: - Bytes

    private mutating func appendLine(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        reserve(name.count + value.count + 4)
        bytes![count] = UInt8(ascii: "\r")
        bytes![count + 1] = UInt8(ascii: "\n")
        count += 2
        append(name)
        bytes![count] = UInt8(ascii: ":")
        bytes![count + 1] = UInt8(ascii: " ")
        count += 2
        append(value)
    }

    private mutating func append(_ part: UnsafeBufferPointer<UInt8>) {
        reserve(part.count)
        if let base = part.baseAddress { (bytes! + count).initialize(from: base, count: part.count) }
        count += part.count
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        while count + extra > capacity { capacity *= 2 }
        bytes = UnsafeMutablePointer<UInt8>(OpaquePointer(realloc(bytes, capacity)!))
    }

    // MARK: - Checks

    private enum Kind { case date, contentLength, transferEncoding, readByLibevent, plain }

    /// Which fields evhttp reads back from a response's headers.
    private static func kind(of name: String) -> Kind {
        switch name.utf8.count {
        case 4 where HTTPHeaders.equalsIgnoringCase(name, "Date"): .date
        case 10 where HTTPHeaders.equalsIgnoringCase(name, "Connection"): .readByLibevent
        case 14 where HTTPHeaders.equalsIgnoringCase(name, "Content-Length"): .contentLength
        case 16 where HTTPHeaders.equalsIgnoringCase(name, "Proxy-Connection"): .readByLibevent
        case 17 where HTTPHeaders.equalsIgnoringCase(name, "Transfer-Encoding"): .transferEncoding
        default: .plain
        }
    }

    /// Whether `name` is a non-empty RFC 9110 token.
    static func isToken(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !name.isEmpty else { return false }
        for byte in name {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "a")...UInt8(ascii: "z"):
                continue
            case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// Whether `value` can be sent as one field value: no CR, LF or NUL.
    static func isFieldValue(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in value where byte == 0x0D || byte == 0x0A || byte == 0 { return false }
        return true
    }
}
