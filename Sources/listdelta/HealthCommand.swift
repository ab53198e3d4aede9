import ArgumentParser
import Glibc
import ListDeltaServer

/// `listdelta health`: asks a running instance's `/healthz`, for container health checks without curl in the image.
struct Health: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the instance on this machine answers GET /healthz with 200.",
        discussion: """
            The port comes from the configuration file, the environment and --port, as for serve; an instance bound \
            to every address (0.0.0.0 or ::) is asked on loopback. Gives up after --timeout seconds.
            """
    )

    @OptionGroup var file: ConfigurationFileOption

    @Option(help: "The address to ask (default: the configured host, loopback for 0.0.0.0 and ::).")
    var host: String?

    @Option(help: "The port to ask (default: the configured port).")
    var port: Int?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Int = 3

    func run() throws {
        let settings = try file.load()
        var address = host ?? settings.host
        if address == "0.0.0.0" { address = "127.0.0.1" }
        if address == "::" { address = "::1" }
        let target = port ?? settings.port
        guard (1...65_535).contains(target) else { throw ValidationError("--port must be 1...65535") }
        guard (1...60).contains(timeout) else { throw ValidationError("--timeout must be 1...60") }
        switch HealthProbe.status(host: address, port: target, timeoutSeconds: timeout) {
        case .success(200):
            print("healthy")
        case .success(let status):
            printError("unhealthy: /healthz answered \(status)")
            throw ExitCode.failure
        case .failure(let problem):
            printError("unhealthy: \(problem.reason)")
            throw ExitCode.failure
        }
    }
}

/// One `GET /healthz` over a plain socket: the status code, or why there is none.
enum HealthProbe {
    struct Failure: Error { let reason: String }

    static func status(host: String, port: Int, timeoutSeconds: Int) -> Result<Int, Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            return .failure(Failure(reason: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return .failure(Failure(reason: "no socket")) }
        defer { close(descriptor) }
        // On Linux the send timeout bounds connect() too.
        var limit = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            return .failure(Failure(reason: "nothing answers on \(host):\(port)"))
        }
        let request = Array("GET /healthz HTTP/1.0\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            return .failure(Failure(reason: "cannot send the request"))
        }
        let capacity = 64
        var head = [UInt8](repeating: 0, count: capacity)
        var received = 0
        while received < capacity {
            let count = head.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + received, capacity - received, 0) }
            if count <= 0 { break }
            received += count
        }
        // "HTTP/1.1 200 OK": the three digits after the first space.
        let line = String(decoding: head[..<received], as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .failure(Failure(reason: "no HTTP answer within \(timeoutSeconds) s"))
        }
        return .success(status)
    }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
