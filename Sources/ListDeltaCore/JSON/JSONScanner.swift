/// The byte-level state of one read of JSON text (a `JSONReader.read` call, or a `TypedWriteBodyReader`'s).
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var maximumDepth: Int
    var position = 0
    /// The members of the objects being read, innermost last: an object's array is made once, at its exact size,
    /// when it closes (objects grown member by member waste room and allocations, 100,000 times in a large list).
    private var openMembers: [JSONObject.Member] = []
    /// The elements of the arrays being read, innermost last, for the same reason.
    private var openElements: [JSONValue] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var isAtEnd: Bool { position >= bytes.count }

    func malformed(_ reason: String) -> JSONReadError {
        .malformed(reason, offset: position)
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(JSONReadError) -> JSONValue {
        guard position < bytes.count else { throw malformed("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw malformed("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONReadError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw malformed("unexpected end of input") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[position + offset] != start[offset] {
            throw malformed("invalid literal")
        }
        position += count
    }

    private mutating func readArray(depth: Int) throws(JSONReadError) -> JSONValue {
        if depth > maximumDepth { throw JSONReadError.tooDeep(limit: maximumDepth, pointer: JSONPointer()) }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array([])
        }
        let start = openElements.count
        defer { openElements.removeLast(openElements.count - start) }
        while true {
            skipWhitespace()
            do {
                openElements.append(try readValue(depth: depth))
            } catch .tooDeep(let limit, let pointer) {
                throw .tooDeep(limit: limit, pointer: pointer.prepending(String(openElements.count - start)))
            }
            skipWhitespace()
            guard position < bytes.count else { throw malformed("unterminated array") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "]") { return .array(Self.exactCopy(openElements[start...])) }
            guard byte == UInt8(ascii: ",") else {
                position -= 1
                throw malformed("expected ',' or ']' in array")
            }
        }
    }

    private mutating func readObject(depth: Int) throws(JSONReadError) -> JSONValue {
        if depth > maximumDepth { throw JSONReadError.tooDeep(limit: maximumDepth, pointer: JSONPointer()) }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject())
        }
        let start = openMembers.count
        defer { openMembers.removeLast(openMembers.count - start) }
        var largeObjectKeys: Set<String> = []
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw malformed("expected a string key in object")
            }
            let keyOffset = position
            let key = try readString()
            // Small objects are searched; a large one keeps a set of its keys, so no object costs quadratic time.
            let count = openMembers.count - start
            let isDuplicate: Bool
            if count < 16 {
                isDuplicate = openMembers[start...].contains { $0.key == key }
            } else {
                if largeObjectKeys.isEmpty { largeObjectKeys = Set(openMembers[start...].lazy.map(\.key)) }
                isDuplicate = !largeObjectKeys.insert(key).inserted
            }
            if isDuplicate {
                throw JSONReadError.malformed("duplicate key \"\(key)\" in object", offset: keyOffset)
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw malformed("expected ':' after object key")
            }
            position += 1
            skipWhitespace()
            let value: JSONValue
            do {
                value = try readValue(depth: depth)
            } catch .tooDeep(let limit, let pointer) {
                throw .tooDeep(limit: limit, pointer: pointer.prepending(key))
            }
            openMembers.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            guard position < bytes.count else { throw malformed("unterminated object") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "}") { return .object(JSONObject(uniqueMembers: Self.exactCopy(openMembers[start...]))) }
            guard byte == UInt8(ascii: ",") else {
                position -= 1
                throw malformed("expected ',' or '}' in object")
            }
        }
    }

    /// A new array of exactly `elements` (`Array(slice)` would share a slice that spans its whole buffer, and
    /// with it the buffer's spare room, and make the next append to that buffer copy it).
    private static func exactCopy<Element>(_ elements: ArraySlice<Element>) -> [Element] {
        var copy: [Element] = []
        copy.reserveCapacity(elements.count)
        copy.append(contentsOf: elements)
        return copy
    }

    private mutating func readNumber() throws(JSONReadError) -> JSONNumber {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw malformed("leading zero in number") }
        } else {
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("invalid fraction") }
            skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw malformed("invalid exponent") }
            skipDigits()
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        return JSONNumber(validatedLiteral: literal)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    /// Reads a string starting at its opening quote.
    mutating func readString() throws(JSONReadError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        var highBits: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                // ASCII is valid UTF-8: no validation pass (the common case of ids, keys and short texts).
                if highBits < 0x80 { return String(decoding: slice, as: UTF8.self) }
                return try makeString(slice, offset: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw malformed("control character in string") }
            highBits |= byte
            position += 1
        }
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<min(position, bytes.count)]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return try scratch.withUnsafeBufferPointer { buffer throws(JSONReadError) in
                    try makeString(buffer, offset: start)
                }
            }
            if byte < 0x20 { throw malformed("control character in string") }
            if byte == UInt8(ascii: "\\") {
                try readEscape(into: &scratch)
            } else {
                scratch.append(byte)
                position += 1
            }
        }
        throw malformed("unterminated string")
    }

    private func makeString(_ slice: UnsafeBufferPointer<UInt8>, offset: Int) throws(JSONReadError) -> String {
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw JSONReadError.malformed("invalid UTF-8 in string", offset: offset)
        }
        return string
    }

    private mutating func readEscape(into scratch: inout [UInt8]) throws(JSONReadError) {
        position += 1
        guard position < bytes.count else { throw malformed("unterminated escape") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if scalar >= 0xD800, scalar < 0xDC00 {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw malformed("unpaired surrogate") }
                position += 2
                let low = try readHex4()
                guard low >= 0xDC00, low < 0xE000 else { throw malformed("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00, scalar < 0xE000 {
                throw malformed("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw malformed("invalid escape") }
            scratch.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw malformed("invalid escape")
        }
    }

    private mutating func readHex4() throws(JSONReadError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw malformed("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw malformed("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
