import CLibevent

/// How ``ResponseHead`` turns a response's fields into evhttp output entries.
public enum ResponseHeadWriting: String, Sendable, CaseIterable {
    /// One `evhttp_add_header` entry per field: libevent's API as documented, on any version.
    case plain
    /// One `Date` entry carrying every field evhttp does not read back (see ``LibeventCompatibility``): fewer
    /// allocations and `printf`s per response, relying on how the libevent versions it was checked against print
    /// and free their header entries.
    case singleEntry = "single-entry"
}

/// What the server assumes of libevent internals beyond its documented API, in one place, and the check of the
/// libevent the binary runs with (`event_get_version_number()`, read at start-up) that decides whether it may.
///
/// The one such assumption is the single-entry response head (``ResponseHeadWriting/singleEntry``): evhttp
/// 2.1.12 prints each output entry as `key: value\r\n` without looking inside the value, reads back only `Date`,
/// `Content-Length`, `Transfer-Encoding`, `Connection` and `Proxy-Connection`, and frees entries with `free` (its
/// default allocator). Another libevent gets the plain path.
public enum LibeventCompatibility {
    /// The libevent versions (as `event_get_version_number()` gives them) the single-entry head was checked
    /// against: 2.1.12-stable.
    static let singleEntryVersions: Set<UInt32> = [0x0201_0c00]

    /// The version number of the libevent the process runs with.
    public static var runningVersion: UInt32 { event_get_version_number() }

    /// The version string of the libevent the process runs with, such as `"2.1.12-stable"`.
    public static var runningVersionString: String { String(cString: event_get_version()) }

    /// How the head is written: `requested`, unless it is the single entry and `version` is not one it was
    /// checked against, which falls back to ``ResponseHeadWriting/plain``.
    public static func headWriting(requested: ResponseHeadWriting, version: UInt32 = runningVersion) -> ResponseHeadWriting {
        requested == .singleEntry && !singleEntryVersions.contains(version) ? .plain : requested
    }

    /// Appends `name: value` to `output` without evhttp's copy and checks, taking ownership of `value` (from
    /// `malloc`): only for fields the caller has checked, only under ``ResponseHeadWriting/singleEntry``.
    static func appendOwnedField(to output: UnsafeMutablePointer<evkeyvalq>, name: StaticString, value: UnsafeMutablePointer<CChar>) {
        _ = CLibevent_evkeyvalq_append_owned(output, name.cString, value)
    }
}

extension StaticString {
    /// The literal as a C string, for evhttp's `const char *` parameters (a string literal's bytes end with a NUL).
    var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
