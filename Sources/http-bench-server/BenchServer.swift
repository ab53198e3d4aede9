import Glibc
import HTTPServer
import Logging
import ZlibCodec

/// Serves one deterministic 2 KB JSON body on `GET /bench` (plain, or the precompressed gzip variant).
///
/// Usage: `http-bench-server PORT [LOOPS] [HEAD]`, HEAD being how response heads are written: `single-entry` (the
/// default, where the running libevent allows it) or `plain`.
@main
struct BenchServer {
    static func main() throws {
        let arguments = CommandLine.arguments
        var configuration = HTTPServerConfiguration()
        configuration.port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
        configuration.eventLoops = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
        var logger = Logger(label: "http-bench-server")
        logger.logLevel = .warning
        let plain = benchBody()
        let gzip = try Gzip.compress(plain)
        var router = Router()
        router.add(.GET, "/bench") { _, responder in
            responder.respond(HTTPResponse(status: 200, body: .precompressed(plain: plain, gzip: gzip)))
        }
        if arguments.count > 3 {
            guard let head = ResponseHeadWriting(rawValue: arguments[3]) else {
                throw BenchServerError("HEAD must be one of \(ResponseHeadWriting.allCases.map(\.rawValue))")
            }
            configuration.responseHeadWriting = head
        }
        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        server.installSignalHandlers()
        try server.start()
        print("listening on \(server.port), response heads \(server.responseHeadWriting.rawValue)")
        fflush(nil)  // every stream: the script reads this line from a file while the server runs
        server.waitUntilStopped()
    }

    /// A 2048-byte JSON array of items, the same bytes on every run.
    static func benchBody() -> [UInt8] {
        var text = "{\"items\":["
        var index = 0
        while true {
            let item = "{\"id\":\(index),\"title\":\"Item number \(index)\",\"done\":\(index % 3 == 0)},"
            if text.utf8.count + item.utf8.count + 64 > 2048 { break }
            text += item
            index += 1
        }
        text.removeLast()
        text += "],\"pad\":\""
        while text.utf8.count < 2046 { text += String(UnicodeScalar(UInt8(97 + text.utf8.count % 26))) }
        text += "\"}"
        return Array(text.utf8)
    }
}

struct BenchServerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
