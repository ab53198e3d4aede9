import ListDeltaCore

/// Reads the bodies a follower receives: documents, batch diffs, problems and reset events.
enum ResponseBody {
    /// Deep enough for any model the server accepts (its `maxDepth` is at most 256).
    static let reader = JSONReader(maximumDepth: 512)

    static func document(_ bytes: [UInt8]) throws(FollowError) -> ListDocument {
        do {
            return try ListDocument(servedJSON: reader.read(bytes))
        } catch {
            throw .unreadable("a document: \(error)")
        }
    }

    static func diff(_ bytes: some Collection<UInt8>) throws(FollowError) -> ListDiff {
        do {
            return try ListDiff(json: reader.read(bytes))
        } catch {
            throw .unreadable("a batch diff: \(error)")
        }
    }

    /// A problem's `detail` (or the body's start when it is no problem object).
    static func detail(_ bytes: [UInt8]) -> String {
        detail(of: (try? reader.read(bytes))?.objectValue, body: bytes)
    }

    /// `problem`'s `detail` (`problem` being `body` read already), or the body's start.
    static func detail(of problem: JSONObject?, body: [UInt8]) -> String {
        if case .string(let detail)? = problem?["detail"] { return detail }
        return String(decoding: body.prefix(200), as: UTF8.self)
    }

    /// The `current` revision a 410 problem or an `event: reset` names, or `nil`.
    static func current(_ bytes: some Collection<UInt8>) -> Int? {
        guard case .object(let object)? = try? reader.read(bytes), case .number(let number)? = object["current"] else {
            return nil
        }
        return number.intValue
    }
}
