import Synchronization

/// A base list at one revision as views read it: its document (`nil`: the base is missing or deleted) and,
/// built on first use and then shared by every view of that base, each item's position in base order.
///
/// Share one `ViewBase` per base revision among all the views of that base: the position map costs O(*n*) to
/// build, once, and only an incremental ``ViewIndex/update(to:diff:)`` asks for it.
public final class ViewBase: Sendable {
    /// Where an item is in the base.
    struct Position: Sendable {
        /// Its place among all items, sections in order and items in order.
        var ordinal: Int
        /// Its section's index.
        var section: Int
        /// Its index in that section.
        var item: Int
    }

    /// The base document, or `nil` when the base is missing or deleted.
    public let document: ListDocument?
    private let positionMap = Mutex<[String: Position]?>(nil)

    /// Wraps a base document (`nil`: missing or deleted). O(1): the position map is built when first needed.
    public init(_ document: ListDocument?) {
        self.document = document
    }

    /// Each item's position by id, built on first use (O(*n*)), then O(1).
    var positions: [String: Position] {
        positionMap.withLock { map in
            if let map { return map }
            var built: [String: Position] = [:]
            built.reserveCapacity(document?.itemCount ?? 0)
            var ordinal = 0
            for (sectionIndex, section) in (document?.sections ?? []).enumerated() {
                for (itemIndex, item) in section.items.enumerated() {
                    built[item.id] = Position(ordinal: ordinal, section: sectionIndex, item: itemIndex)
                    ordinal += 1
                }
            }
            map = built
            return built
        }
    }
}
