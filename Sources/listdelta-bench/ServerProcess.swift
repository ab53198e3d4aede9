import Foundation

/// A `listdelta serve` process on a free loopback port, for benchmarks that measure the server as it runs.
final class ServerProcess {
    let port: Int
    private let process = Process()

    /// `listdelta` in the directory of this benchmark's executable (both are products of one build).
    static func siblingBinary() -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("listdelta").path
    }

    /// Starts `binary serve` on 127.0.0.1 and a free port, with `arguments` and `environment` added. Its
    /// per-client connection limit is off (every benchmark client is one loopback address), unless `environment`
    /// sets it.
    init(binary: String, arguments: [String], environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchHTTPClient.Failure(description: "no listdelta binary at \(binary); build it with swift build -c release --product listdelta, or pass --binary")
        }
        port = try Self.freePort()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(port)] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["LISTDELTA_MAX_CONNECTIONS_PER_CLIENT": "0"]) { $1 }
            .merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits (at most 30 s) until the server answers `/healthz`.
    func waitUntilReady(_ client: BenchHTTPClient) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else { throw BenchHTTPClient.Failure(description: "the server exited with status \(process.terminationStatus)") }
            if let response = try? client.request("GET", "/healthz"), response.status == 200 { return }
            usleep(50_000)
        }
        throw BenchHTTPClient.Failure(description: "the server did not answer /healthz within 30 s")
    }

    /// The server's resident memory in bytes, from `/proc/<pid>/statm`.
    func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/\(process.processIdentifier)/statm", encoding: .utf8).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { throw BenchHTTPClient.Failure(description: "cannot read the server's statm") }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Kills the server (SIGKILL, as a crash would) and waits for it; does nothing when it already stopped.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server (SIGTERM, then waits for it); does nothing when it already stopped.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A port nobody listens on now: the kernel's pick for a socket bound to port 0.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchHTTPClient.Failure(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchHTTPClient.Failure(description: "cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
