import Foundation
import HTTPServer

/// The files served beside the API: the live page (`/`), its script and style, `client.js`, `openapi.yaml`.
///
/// They ship as package resources (`Sources/ListDeltaService/Web`), are read once at start-up and kept
/// rendered in both codings.
struct StaticRoutes {
    /// URL path -> (resource file, media type).
    static let files: [(path: String, file: String, type: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "style.css", "text/css; charset=utf-8"),
        ("/client.js", "client.js", "text/javascript; charset=utf-8"),
        ("/openapi.yaml", "openapi.yaml", "application/yaml"),
    ]

    /// A directory to read the files from instead of the bundle (for working on the page); empty for the bundle.
    let webRoot: String

    /// Registers a route for every file present.
    func register(in router: inout Router) {
        for entry in Self.files {
            let url = webRoot.isEmpty
                ? Bundle.module.url(forResource: entry.file, withExtension: nil, subdirectory: "Web")
                : URL(fileURLWithPath: webRoot).appendingPathComponent(entry.file)
            guard let url, let data = try? Data(contentsOf: url) else { continue }
            let rendered = RenderedBody(bytes: Array(data))
            let opaque = "static-" + String(Self.fingerprint(data), radix: 36)
            let type = entry.type
            router.add(.GET, entry.path) { request, responder in
                responder.respond(Responses.representation(
                    rendered, etag: opaque, contentType: type, cacheControl: "no-cache", request: request))
            }
        }
    }

    /// FNV-1a of the bytes: the same file gets the same entity tag in every process.
    private static func fingerprint(_ data: Data) -> UInt64 {
        data.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
