public import Foundation

/// A child placed inside its rectangle minus margins (top, leading, bottom, trailing); a margin larger than the
/// rectangle leaves the child an empty frame rather than a negative one.
public struct InsetLayout<Child: Layout>: Layout {
    public typealias Content = Child.Content

    /// The child.
    public var child: Child
    /// The margins.
    public var top, leading, bottom, trailing: CGFloat

    /// Creates the layout with the same margin on every side.
    public init(_ child: Child, all margin: CGFloat) {
        self.init(child, top: margin, leading: margin, bottom: margin, trailing: margin)
    }

    /// Creates the layout.
    public init(_ child: Child, top: CGFloat = 0, leading: CGFloat = 0, bottom: CGFloat = 0, trailing: CGFloat = 0) {
        self.child = child
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }

    public mutating func layout(in rect: CGRect) {
        let rect = rect.standardized
        let width = max(0, rect.width - leading - trailing)
        let height = max(0, rect.height - top - bottom)
        child.layout(in: CGRect(x: rect.minX + min(leading, rect.width), y: rect.minY + min(top, rect.height), width: width, height: height))
    }

    public var contents: [Content] { child.contents }
}
