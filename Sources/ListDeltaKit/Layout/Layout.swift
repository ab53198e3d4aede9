public import Foundation

/// A value that places content in a rectangle: the layout of a cell, decided and unit-tested without a view.
///
/// Layouts compose: `DecoratingLayout`, `CascadingLayout` and `InsetLayout` take other layouts, whatever their
/// type, as long as they place the same kind of `Content` (a view, a layer, a test double). At the leaves, a
/// `Placed` value records the frame its target gets.
public protocol Layout {
    /// What the layout finally places.
    associatedtype Content

    /// Places the content in `rect`.
    mutating func layout(in rect: CGRect)

    /// The content placed, in order (after `layout(in:)`, with its frames).
    var contents: [Content] { get }
}

/// A leaf: one target (a view, a layer, a name in a test) and the frame the last layout gave it.
///
/// ```swift
/// var layout = DecoratingLayout(content: Placed(titleLabel), decoration: Placed(imageView))
/// layout.layout(in: cell.bounds)
/// for leaf in layout.contents { leaf.target.frame = leaf.frame }
/// ```
public struct Placed<Target>: Layout {
    public typealias Content = Placed<Target>

    /// What is placed.
    public var target: Target
    /// Where the last `layout(in:)` placed it.
    public private(set) var frame: CGRect

    /// A leaf for `target`, not yet placed.
    public init(_ target: Target, frame: CGRect = .zero) {
        self.target = target
        self.frame = frame
    }

    public mutating func layout(in rect: CGRect) {
        frame = rect
    }

    public var contents: [Placed<Target>] { [self] }
}

extension Placed: Equatable where Target: Equatable {}
extension Placed: Sendable where Target: Sendable {}
