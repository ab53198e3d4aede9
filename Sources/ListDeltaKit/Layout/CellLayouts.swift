import Foundation
public import ListDeltaCore

/// Layouts chosen by cell identifier: a list item's `cell` (as `CellRegistry` resolves it) selects how the parts
/// of its cell are placed.
///
/// ```swift
/// var layouts = CellLayouts<Placed<UIView>>()
/// layouts.register(cell: "article") { parts in
///     AnyLayout(DecoratingLayout(content: CascadingLayout(children: Array(parts.dropFirst())), decoration: parts[0]))
/// }
/// ```
public struct CellLayouts<Leaf: Layout> where Leaf.Content == Leaf {
    /// Builds a cell's layout from its parts (the leaves, in the order the cell gives them).
    public typealias Factory = ([Leaf]) -> AnyLayout<Leaf>

    private var factories: [String: Factory] = [:]
    /// The layout for a cell nothing is registered for: the parts stacked.
    public var fallback: Factory = { AnyLayout(CascadingLayout(children: $0)) }

    /// No registrations.
    public init() {}

    /// Lays out cells with identifier `cell` with the layout `make` builds.
    public mutating func register(cell: String, make: @escaping Factory) {
        factories[cell] = make
    }

    /// The layout of `parts` for cells with identifier `cell`.
    public func layout(forCell cell: String, parts: [Leaf]) -> AnyLayout<Leaf> {
        (factories[cell] ?? fallback)(parts)
    }

    /// The layout of `parts` for the item at `path` of `dataSource`, chosen by its cell identifier.
    public func layout(for path: ItemPath, in dataSource: ListDataSource, parts: [Leaf]) -> AnyLayout<Leaf> {
        layout(forCell: dataSource.cellIdentifier(at: path), parts: parts)
    }
}
