import Foundation

/// Reads a file source. Its validator is the file's change time and size, so an unchanged file is not read again.
public struct FileSourceFetcher: SourceFetching {
    public let limits: FetchLimits

    public init(limits: FetchLimits) {
        self.limits = limits
    }

    public func fetch(_ request: FetchRequest) throws(SourceFetchError) -> FetchResponse {
        guard case .file(let path) = request.location else {
            throw SourceFetchError(.invalidURL, "not a file source")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SourceFetchError(.file, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw SourceFetchError(.file, "\(path) is not a regular file") }
        guard Int(info.st_size) <= limits.maximumBytes else {
            throw SourceFetchError(.tooLarge, "\(path) is \(info.st_size) bytes, more than the \(limits.maximumBytes) a source may read")
        }
        let stamp = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_size)"
        let validators = FetchValidators(entityTag: nil, lastModified: stamp)
        if request.validators.lastModified == stamp {
            return FetchResponse(status: nil, body: .notModified, validators: validators)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SourceFetchError(.file, "cannot open \(path)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limits.maximumBytes + 1) ?? Data()
        } catch {
            throw SourceFetchError(.file, "cannot read \(path): \(error)")
        }
        guard data.count <= limits.maximumBytes else {
            throw SourceFetchError(.tooLarge, "\(path) is more than the \(limits.maximumBytes) bytes a source may read")
        }
        return FetchResponse(status: nil, body: .content(Array(data)), validators: validators)
    }
}
