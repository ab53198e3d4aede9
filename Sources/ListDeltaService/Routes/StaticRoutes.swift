import Foundation
import HTTPServer
import ListDeltaCore
import ListDeltaEngine

/// The files served beside the API: the live page (`/`), its script and style, `client.js` and its declarations
/// (`client.d.ts`), `openapi.yaml`.
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
        ("/client.d.ts", "client.d.ts", "application/typescript; charset=utf-8"),
        ("/openapi.yaml", "openapi.yaml", "application/yaml"),
    ]

    /// The page's ES modules: every `.js` file of `Web/app/`, served as `/app/{module}`.
    static let moduleDirectory = "app"

    /// A directory to read the files from instead of the bundle (for working on the page); empty for the bundle.
    let webRoot: String

    /// Registers a route for every file present, and one for the page's modules.
    func register(in router: inout Router) {
        for entry in Self.files {
            guard let data = read(entry.file) else { continue }
            let rendered = RenderedBody(bytes: Array(data))
            let opaque = "static-" + String(Self.fingerprint(data), radix: 36)
            let type = entry.type
            let isPage = type.hasPrefix("text/html")
            router.add(.GET, entry.path) { request, responder in
                var response = Responses.representation(
                    rendered, etag: opaque, contentType: type, cacheControl: "no-cache", request: request)
                if isPage { response.headers["Content-Security-Policy"] = SecurityHeaders.pagePolicy }
                responder.respond(response)
            }
        }
        let modules = moduleFiles()
        router.add(.GET, "/app/{module}") { request, responder in
            guard let module = modules[request.pathParameters["module"] ?? ""] else {
                responder.respond(Responses.problem(.notFound("there is no module \"\(request.pathParameters["module"] ?? "")\"")))
                return
            }
            responder.respond(Responses.representation(
                module.rendered, etag: module.opaque, contentType: "text/javascript; charset=utf-8", cacheControl: "no-cache",
                request: request))
        }
    }

    /// The contents of a file of `Web/` (from ``webRoot`` when set), or nil when there is none.
    private func read(_ file: String) -> Data? {
        let url = webRoot.isEmpty
            ? Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Web")
            : URL(fileURLWithPath: webRoot).appendingPathComponent(file)
        guard let url else { return nil }
        return try? Data(contentsOf: url)
    }

    /// Every `.js` file of the module directory, by file name, rendered once.
    private func moduleFiles() -> [String: (rendered: RenderedBody, opaque: String)] {
        let directory = webRoot.isEmpty
            ? Bundle.module.url(forResource: Self.moduleDirectory, withExtension: nil, subdirectory: "Web")
            : URL(fileURLWithPath: webRoot).appendingPathComponent(Self.moduleDirectory)
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        var modules: [String: (rendered: RenderedBody, opaque: String)] = [:]
        for name in names where name.hasSuffix(".js") {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else { continue }
            modules[name] = (RenderedBody(bytes: Array(data)), "static-" + String(Self.fingerprint(data), radix: 36))
        }
        return modules
    }

    /// FNV-1a of the bytes: the same file gets the same entity tag in every process.
    private static func fingerprint(_ data: Data) -> UInt64 { FNV1a.hash(data) }
}
