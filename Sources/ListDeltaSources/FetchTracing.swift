import Foundation
import Tracing

/// What a fetch's client span records and sends: the W3C trace-context headers of its span, and its URL without
/// what may hold a secret (user info, query, fragment).
enum FetchTracing {
    /// `traceparent` (and `tracestate`) of `span`, as the bootstrapped instrument writes them; none untraced.
    static func headers(of span: any Span) -> [(String, String)] {
        var carrier: [(String, String)] = []
        InstrumentationSystem.instrument.inject(span.context, into: &carrier, using: HeaderListInjector())
        return carrier
    }

    /// `url`'s scheme, host, port and path: a feed's query may hold a key.
    static func fullURL(_ url: URL) -> String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        components.percentEncodedPath = url.path.isEmpty ? "/" : (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/")
        return components.string.map { String($0.prefix(256)) } ?? ""
    }

    private struct HeaderListInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
            carrier.append((key, value))
        }
    }
}
