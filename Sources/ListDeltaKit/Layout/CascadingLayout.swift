public import Foundation

/// Children stacked from top to bottom in rows of equal height, `spacing` between rows: a title over a subtitle
/// over a footnote. Any number of children of one layout type (use `AnyLayout` to mix types).
///
/// Three children in a 70×30 rectangle with spacing 0 get rows of 10 points: y = 0, 10 and 20.
public struct CascadingLayout<Child: Layout>: Layout {
    public typealias Content = Child.Content

    /// The rows, top first.
    public var children: [Child]
    /// The gap between two rows.
    public var spacing: CGFloat

    /// Creates the layout.
    public init(children: [Child], spacing: CGFloat = 0) {
        self.children = children
        self.spacing = spacing
    }

    /// - Complexity: O(*n*) for *n* children.
    public mutating func layout(in rect: CGRect) {
        guard !children.isEmpty else { return }
        let rect = rect.standardized
        let gaps = spacing * CGFloat(children.count - 1)
        let rowHeight = max(0, (rect.height - gaps) / CGFloat(children.count))
        for index in children.indices {
            let y = rect.minY + CGFloat(index) * (rowHeight + spacing)
            children[index].layout(in: CGRect(x: rect.minX, y: y, width: rect.width, height: rowHeight))
        }
    }

    public var contents: [Content] { children.flatMap(\.contents) }
}
