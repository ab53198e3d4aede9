public import Foundation

/// Any layout of a given content type: lets layouts of different types sit in one `CascadingLayout`, or be chosen
/// at run time (`CellLayouts`).
public struct AnyLayout<Content>: Layout {
    private var box: any LayoutBox<Content>

    /// Wraps `layout`.
    public init<Wrapped: Layout>(_ layout: Wrapped) where Wrapped.Content == Content {
        box = ConcreteBox(layout: layout)
    }

    public mutating func layout(in rect: CGRect) {
        box.layout(in: rect)
    }

    public var contents: [Content] { box.contents }
}

private protocol LayoutBox<Content> {
    associatedtype Content
    mutating func layout(in rect: CGRect)
    var contents: [Content] { get }
}

private struct ConcreteBox<Wrapped: Layout>: LayoutBox {
    var layout: Wrapped
    mutating func layout(in rect: CGRect) { layout.layout(in: rect) }
    var contents: [Wrapped.Content] { layout.contents }
}
