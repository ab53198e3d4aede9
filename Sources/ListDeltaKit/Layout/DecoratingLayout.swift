public import Foundation

/// Content with a decoration beside it: the decoration is a square at the leading edge (an icon, an avatar, a
/// thumbnail), as tall as the rectangle minus the insets; the content fills the rest, `spacing` after it.
///
/// In a 120×40 rectangle with the default insets of 5 and spacing of 10, the decoration is placed at
/// (5, 5, 30, 30) and the content at (45, 5, 70, 30). A rectangle narrower than the square gives the square
/// all its width and the content none.
public struct DecoratingLayout<Child: Layout, Decoration: Layout>: Layout where Child.Content == Decoration.Content {
    public typealias Content = Child.Content

    /// The main layout.
    public var content: Child
    /// The decoration layout.
    public var decoration: Decoration
    /// The margin on every side.
    public var inset: CGFloat
    /// The gap between decoration and content.
    public var spacing: CGFloat

    /// Creates the layout.
    public init(content: Child, decoration: Decoration, inset: CGFloat = 5, spacing: CGFloat = 10) {
        self.content = content
        self.decoration = decoration
        self.inset = inset
        self.spacing = spacing
    }

    public mutating func layout(in rect: CGRect) {
        let inner = rect.insetBy(dx: inset, dy: inset).standardized
        let side = max(0, min(inner.height, inner.width))
        let decorationFrame = CGRect(x: inner.minX, y: inner.minY, width: side, height: side)
        let contentX = min(decorationFrame.maxX + spacing, inner.maxX)
        let contentFrame = CGRect(x: contentX, y: inner.minY, width: max(0, inner.maxX - contentX), height: inner.height)
        decoration.layout(in: decorationFrame)
        content.layout(in: contentFrame)
    }

    /// The content's contents, then the decoration's.
    public var contents: [Content] { content.contents + decoration.contents }
}
