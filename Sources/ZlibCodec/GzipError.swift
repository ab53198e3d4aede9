/// Errors from ``Gzip``.
public enum GzipError: Error, Sendable, Equatable {
    /// zlib refused to initialise a stream (the zlib return code).
    case initializationFailed(Int32)
    /// The input is not valid gzip/deflate data, or is truncated.
    case corruptData
    /// The inflated size would exceed the limit (bytes).
    case tooLarge(limit: Int)
}
