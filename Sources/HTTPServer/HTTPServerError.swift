/// Errors thrown while starting an ``HTTPServer``.
public enum HTTPServerError: Error, Sendable, Equatable {
    /// `start()` was called twice or after `shutdown()`.
    case alreadyStarted
    /// The configuration is invalid; the payload names the property.
    case invalidConfiguration(String)
    /// libevent could not create an event base or evhttp.
    case eventLoopCreationFailed
    /// Binding the listener failed (address in use, bad host, permission).
    case bindFailed(host: String, port: Int)
    /// A loop thread could not be started.
    case threadCreationFailed
}
