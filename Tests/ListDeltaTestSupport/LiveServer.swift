public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import ListDeltaCore
import ListDeltaCoreTestSupport
public import ListDeltaServer
public import ListDeltaService
import Logging

/// The real ListDelta service on a loopback port, in this process: started, stopped and started again on the same
/// port and data directory (a restart).
public final class LiveServer: @unchecked Sendable {
    /// Holds the data directory (``directory``) for as long as this lives.
    private let temporary: TemporaryDirectory
    public var directory: String { temporary.path }
    public private(set) var port = 0
    private var app: ListDeltaApp?
    private let configure: @Sendable (inout ServiceConfiguration) -> Void

    public init(_ configure: @escaping @Sendable (inout ServiceConfiguration) -> Void = { _ in }) throws {
        temporary = try TemporaryDirectory(prefix: "listdeltakit")
        self.configure = configure
        try start()
    }

    deinit {
        app?.shutdown()
        app?.waitUntilStopped()
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts serving (on the port it had before, after a `stop()`).
    public func start() throws {
        let previousPort = port
        let configuration = ServiceConfiguration.testing(in: directory) { configuration in
            configuration.port = previousPort
            configure(&configuration)
        }
        let app = try ListDeltaApp(configuration: configuration, logger: .quiet("listdeltakit-test"), registry: nil)
        try app.start()
        port = app.port
        self.app = app
    }

    /// Stops serving: every connection closes.
    public func stop() {
        app?.shutdown()
        app?.waitUntilStopped()
        app = nil
    }

    /// A whole-list write; returns the revision it made.
    @discardableResult
    public func put(_ list: String, _ body: JSONValue) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/lists/\(list)"))
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONWriter.bytes(of: body))
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 || status == 201, case .object(let answer) = try JSONReader().read(Array(data)),
              case .number(let revision)? = answer["revision"], let revision = revision.intValue
        else { throw LiveServerError("PUT \(list) answered \(status): \(String(decoding: data, as: UTF8.self))") }
        return revision
    }

    /// The document of `list` at `revision` (the current one when `nil`), as the server serves it.
    public func document(_ list: String, revision: Int? = nil) async throws -> ListDocument {
        var url = baseURL.appendingPathComponent("v1/lists/\(list)").absoluteString
        if let revision { url += "?revision=\(revision)" }
        let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw LiveServerError("GET \(url) answered \(String(decoding: data, as: UTF8.self))")
        }
        return try ListDocument(servedJSON: JSONReader().read(Array(data)))
    }
}

public struct LiveServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
