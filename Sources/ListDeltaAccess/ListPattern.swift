/// A list-id pattern of a scoped token's `lists` claim: `*` matches any run of characters (`team-7-*`), every
/// other character itself.
public struct ListPattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as the token wrote it.
    public let description: String
    /// The literal runs between the stars, in order; `anchoredStart`/`anchoredEnd` say whether the pattern has no
    /// star before the first run or after the last.
    private let runs: [[UInt8]]
    private let anchoredStart: Bool
    private let anchoredEnd: Bool

    /// The longest pattern accepted, in bytes (a list id is at most 128).
    public static let maximumLength = 256

    /// Reads a pattern: list-id characters (`A-Z a-z 0-9 . _ -`) and `*`; `nil` for anything else or one longer than
    /// ``maximumLength``.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, bytes.allSatisfy(Self.isAllowed) else { return nil }
        description = text
        runs = bytes.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: true).map(Array.init)
        anchoredStart = bytes.first != UInt8(ascii: "*")
        anchoredEnd = bytes.last != UInt8(ascii: "*")
    }

    /// `true` when `id` matches the whole pattern.
    ///
    /// Greedy matching of the literal runs, leftmost first, with the last run pinned to the end: correct for `*`
    /// (any run, including none) without backtracking.
    /// - Complexity: O(*n*·*m*) in the id's and the pattern's lengths, at most 128 × 256 steps.
    public func matches(_ id: String) -> Bool {
        let text = Array(id.utf8)
        if runs.isEmpty { return !anchoredStart || text.isEmpty }  // "*" (or "**") matches everything
        var position = 0
        var remaining = runs[...]
        if anchoredStart {
            let first = remaining.removeFirst()
            guard text.starts(with: first) else { return false }
            position = first.count
            if remaining.isEmpty { return anchoredEnd ? text.count == first.count : true }
        }
        let last: [UInt8]? = anchoredEnd ? remaining.removeLast() : nil
        for run in remaining {
            guard let found = Self.find(run, in: text, from: position) else { return false }
            position = found + run.count
        }
        guard let last else { return true }
        return text.count - position >= last.count && text.suffix(last.count).elementsEqual(last)
    }

    private static func find(_ run: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        guard run.count <= text.count - start else { return nil }
        var index = start
        while index + run.count <= text.count {
            if text[index..<index + run.count].elementsEqual(run) { return index }
            index += 1
        }
        return nil
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "*"):
            return true
        default:
            return false
        }
    }
}
