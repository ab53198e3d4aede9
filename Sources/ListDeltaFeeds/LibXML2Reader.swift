import CLibXML2

/// Reads prepared XML (see `XMLInput`) with libxml2's SAX2 interface into an `XMLTreeBuilder`.
///
/// libxml2 runs without recovery, without network access, without loading any DTD and without substituting
/// entities (the prolog guard has already refused or expanded every declared one): only the five predefined
/// entities and character references are decoded. Names come from libxml2's dictionary, so each distinct name
/// becomes a `String` once per parse.
final class LibXML2Reader {
    private let builder: XMLTreeBuilder
    private var context: xmlParserCtxtPtr?
    /// Lower-cased element and attribute names (their `intern` indices) by the address of libxml2's interned copy.
    private var names: [UnsafeRawPointer: Int32] = [:]
    /// Namespace URIs and prefixes as written (their `intern` indices), by the address of libxml2's interned copy.
    private var uris: [UnsafeRawPointer: Int32] = [:]

    private init(builder: XMLTreeBuilder) {
        self.builder = builder
    }

    /// Parses `input` into a tree and returns its root element.
    /// - Throws: `.malformed` with the line and column libxml2 reports, or when elements nest deeper than
    ///   `maximumDepth`.
    /// - Complexity: O(*n*) in the bytes.
    static func parse(_ input: XMLInput, baseURL: String?, maximumDepth: Int) throws(FeedParseError) -> XMLNode {
        _ = initialized
        let builder = XMLTreeBuilder(maximumDepth: maximumDepth, documentBase: baseURL, expectedBytes: input.bytes.count)
        let reader = LibXML2Reader(builder: builder)
        var handler = saxHandler
        let unmanaged = Unmanaged.passUnretained(reader)
        guard let context = xmlCreatePushParserCtxt(&handler, unmanaged.toOpaque(), nil, 0, nil) else {
            throw FeedParseError(.malformed, "The XML reader could not be started (out of memory?).")
        }
        defer {
            // libxml2 builds a document of its own to hold entity declarations when no SAX callback takes them
            // (xmlParseEntityDecl), and freeing the context leaves it: freed here, or every feed that declares an
            // entity leaks it (found by fuzz-feed under AddressSanitizer).
            if let document = context.pointee.myDoc {
                xmlFreeDoc(document)
                context.pointee.myDoc = nil
            }
            xmlFreeParserCtxt(context)
        }
        reader.context = context
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
        let status = input.bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { xmlParseChunk(context, $0, Int32(buffer.count), 1) }
            } ?? xmlParseChunk(context, nil, 0, 1)
        }
        withExtendedLifetime(reader) {}
        if let failure = reader.builder.failure { throw failure }
        guard status == 0, context.pointee.wellFormed != 0, let root = reader.builder.finish() else {
            let line = xmlSAX2GetLineNumber(context)
            let column = xmlSAX2GetColumnNumber(context)
            throw FeedParseError(.malformed, "The XML could not be read (line \(line), column \(column)).")
        }
        return root
    }

    /// libxml2's global state, set up once for every thread.
    private static let initialized: Void = xmlInitParser()

    /// The SAX2 callbacks: elements with namespaces, character data and CDATA, structured errors. Everything else
    /// (DTD declarations, entity lookups, processing instructions, comments) is left unset, so ignored.
    private static var saxHandler: xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localName, prefix, uri, _, _, attributeCount, _, attributes in
            LibXML2Reader.reader(context).startElement(localName, prefix, uri, Int(attributeCount), attributes)
        }
        handler.endElementNs = { context, _, _, _ in LibXML2Reader.reader(context).builder.close() }
        handler.characters = { context, bytes, count in
            guard let bytes else { return }
            LibXML2Reader.reader(context).builder.characters(UnsafeBufferPointer(start: bytes, count: Int(count)))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        handler.serror = { context, error in
            guard let error else { return }
            LibXML2Reader.reader(context).report(error.pointee)
        }
        return handler
    }

    private static func reader(_ context: UnsafeMutableRawPointer?) -> LibXML2Reader {
        Unmanaged<LibXML2Reader>.fromOpaque(context!).takeUnretainedValue()
    }

    private func startElement(
        _ localName: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?,
        _ attributeCount: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard builder.failure == nil, let localName else { return }
        guard builder.mayOpenElement else {
            let line = context.map { xmlSAX2GetLineNumber($0) } ?? 0
            stop(FeedParseError(
                .malformed, "The XML nests elements deeper than \(builder.maximumDepth) levels (line \(line)); a feed never needs that."))
            return
        }
        var namespace: Int32 = 0
        if let uri {
            namespace = name(uri, lowercased: false)
        } else if let prefix, let known = XMLWellKnownNamespaces.byPrefix[builder.string(name(prefix, lowercased: false))] {
            namespace = builder.intern(known)
        }
        var attributeValues: [String: String] = [:]
        if attributeCount > 0, let attributes {
            attributeValues.reserveCapacity(attributeCount)
            // Five pointers each: local name, prefix, URI, value start, value end.
            for index in 0..<attributeCount {
                let base = index * 5
                guard let local = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4] else { continue }
                var key = builder.string(name(local, lowercased: true))
                if let attributePrefix = attributes[base + 1] { key = builder.string(name(attributePrefix, lowercased: true)) + ":" + key }
                attributeValues[key] = Self.attributeValue(UnsafeBufferPointer(start: start, count: end - start))
            }
        }
        builder.open(name: name(localName, lowercased: true), namespace: namespace, attributes: attributeValues)
    }

    /// An attribute's value: libxml2, when it does not substitute entities, hands `&` on as `&#38;`.
    private static func attributeValue(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        let escaped = Array("&#38;".utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + 5 <= bytes.count, bytes[index..<(index + 5)].elementsEqual(escaped) {
                result.append(UInt8(ascii: "&"))
                index += 5
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The `intern` index of a name libxml2 interned (ASCII letters lower-cased when asked), looked up once per
    /// parse and name.
    private func name(_ pointer: UnsafePointer<xmlChar>, lowercased: Bool) -> Int32 {
        let key = UnsafeRawPointer(pointer)
        if let known = lowercased ? names[key] : uris[key] { return known }
        var bytes: [UInt8] = []
        var cursor = pointer
        while cursor.pointee != 0 && bytes.count < 4_096 {
            let byte = cursor.pointee
            bytes.append(lowercased && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            cursor += 1
        }
        let id = builder.intern(String(decoding: bytes, as: UTF8.self))
        // Only names libxml2's dictionary owns stay at their address for the whole parse.
        if let dictionary = context?.pointee.dict, xmlDictOwns(dictionary, pointer) == 1 {
            if lowercased { names[key] = id } else { uris[key] = id }
        }
        return id
    }

    private func report(_ error: xmlError) {
        guard builder.failure == nil, !XMLErrorReasons.isTolerated(Int(error.code)) else { return }
        let code = Int(error.code)
        stop(FeedParseError(
            .malformed,
            "The XML is malformed at line \(error.line), column \(error.int2): \(XMLErrorReasons.reason(code)) (XML error \(code))."))
    }

    /// Records `failure` and stops libxml2 at once.
    private func stop(_ failure: FeedParseError) {
        builder.failure = failure
        if let context { xmlStopParser(context) }
    }
}
