public import Foundation

/// Where a source's content lives: a web address or a file under the configured directory. Parsed and checked
/// once, when a source is attached, and again for every redirect.
public enum SourceLocation: Sendable, Equatable {
    /// An `http` or `https` URL (absolute, with a host, no credentials).
    case web(URL)
    /// A file, by its resolved absolute path inside the source directory.
    case file(path: String)

    /// The longest URL a source takes.
    public static let maximumURLBytes = 2_048

    /// Reads a URL as a source location.
    /// - Parameter fileDirectory: The directory `file:` URLs must lie in (after resolving symbolic links), or
    ///   `nil` when file sources are off.
    /// - Throws: `SourceFetchError.invalidURL` saying what is wrong.
    public init(_ text: String, fileDirectory: String?) throws(SourceFetchError) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumURLBytes else {
            throw SourceFetchError(.invalidURL, "url must be 1 to \(Self.maximumURLBytes) bytes")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw SourceFetchError(.invalidURL, "url is not an absolute URL")
        }
        switch scheme {
        case "http", "https":
            self = .web(try Self.checkedWeb(url))
        case "file":
            guard let fileDirectory else {
                throw SourceFetchError(.invalidURL, "file: sources are off (configure sourceDirectory to allow them)")
            }
            self = .file(path: try Self.checkedFile(url, in: fileDirectory))
        default:
            throw SourceFetchError(.invalidURL, "url must be http, https or file, not \(scheme)")
        }
    }

    /// A redirect's target, resolved against the URL that answered; only `http` and `https`.
    /// - Throws: `SourceFetchError.redirects` when the target is missing or not a web URL.
    public static func redirect(_ location: String, from base: URL) throws(SourceFetchError) -> URL {
        guard let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            throw SourceFetchError(.redirects, "a redirect to \"\(location)\" is not an http or https URL")
        }
        do {
            return try checkedWeb(target)
        } catch {
            throw SourceFetchError(.redirects, "a redirect to \"\(location)\": \(error.message)")
        }
    }

    private static func checkedWeb(_ url: URL) throws(SourceFetchError) -> URL {
        guard let host = url.host, !host.isEmpty else { throw SourceFetchError(.invalidURL, "url has no host") }
        // A name of letters, digits, hyphens and dots (IDN in its ASCII form), or an address literal: nothing a
        // resolver would read differently from the host policy (a NUL, a percent escape).
        // Checked as written (Foundation decodes percent escapes in `host`), so escapes are refused.
        let written = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedHost ?? host
        let bare = written.hasPrefix("[") && written.hasSuffix("]") ? String(written.dropFirst().dropLast()) : written
        guard !bare.isEmpty, IPAddress(bare) != nil || bare.utf8.allSatisfy(Self.isHostNameByte) else {
            throw SourceFetchError(.invalidURL, "url's host must be an address or a name of ASCII letters, digits, hyphens and dots (IDN as punycode)")
        }
        guard url.user == nil, url.password == nil else {
            throw SourceFetchError(.invalidURL, "url must not carry credentials")
        }
        if let port = url.port, !(1...65_535).contains(port) {
            throw SourceFetchError(.invalidURL, "url's port must be 1 to 65535")
        }
        return url
    }

    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    private static func checkedFile(_ url: URL, in directory: String) throws(SourceFetchError) -> String {
        if let host = url.host, !host.isEmpty, host != "localhost" {
            throw SourceFetchError(.invalidURL, "a file: URL names no host (file:///path)")
        }
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().standardizedFileURL.path
        let resolved = URL(fileURLWithPath: url.path).resolvingSymlinksInPath().standardizedFileURL.path
        guard resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw SourceFetchError(.invalidURL, "file: sources must lie under the source directory \(root)")
        }
        return resolved
    }
}
