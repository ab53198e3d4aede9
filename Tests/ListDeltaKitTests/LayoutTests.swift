import Foundation
import ListDeltaCore
import Testing
@testable import ListDeltaKit

/// A test double content type: a named box that remembers its frame.
struct Box: Layout, Equatable {
    typealias Content = Box
    var name: String
    var frame = CGRect.zero
    mutating func layout(in rect: CGRect) { frame = rect }
    var contents: [Box] { [self] }
}

@Suite struct LayoutTests {
    @Test func decoratingLayoutOfTwoChildrenInA120By40Rect() {
        var layout = DecoratingLayout(content: Box(name: "title"), decoration: Box(name: "icon"))
        layout.layout(in: CGRect(x: 0, y: 0, width: 120, height: 40))
        #expect(layout.contents.map(\.name) == ["title", "icon"])
        #expect(layout.contents[0].frame == CGRect(x: 45, y: 5, width: 70, height: 30))
        #expect(layout.contents[1].frame == CGRect(x: 5, y: 5, width: 30, height: 30))
    }

    @Test func aRectNarrowerThanTheDecorationLeavesTheContentEmpty() {
        var layout = DecoratingLayout(content: Box(name: "title"), decoration: Box(name: "icon"))
        layout.layout(in: CGRect(x: 10, y: 10, width: 30, height: 100))
        #expect(layout.contents[1].frame == CGRect(x: 15, y: 15, width: 20, height: 20))
        #expect(layout.contents[0].frame.width == 0)
    }

    @Test func cascadingLayoutStacksChildrenInEqualRows() {
        var layout = CascadingLayout(children: [Box(name: "a"), Box(name: "b"), Box(name: "c")], spacing: 3)
        layout.layout(in: CGRect(x: 10, y: 20, width: 50, height: 36))
        #expect(layout.contents.map(\.frame) == [
            CGRect(x: 10, y: 20, width: 50, height: 10),
            CGRect(x: 10, y: 33, width: 50, height: 10),
            CGRect(x: 10, y: 46, width: 50, height: 10),
        ])
    }

    @Test func composedLayoutsPlaceEveryLeaf() {
        // An icon beside a title over a subtitle, inset in a 120×40 cell.
        let text = CascadingLayout(children: [Box(name: "title"), Box(name: "subtitle")])
        var layout = InsetLayout(DecoratingLayout(content: text, decoration: Box(name: "icon")), top: 0, leading: 10, bottom: 0, trailing: 0)
        layout.layout(in: CGRect(x: 0, y: 0, width: 120, height: 40))
        #expect(layout.contents.map(\.name) == ["title", "subtitle", "icon"])
        #expect(layout.contents.map(\.frame) == [
            CGRect(x: 55, y: 5, width: 60, height: 15),
            CGRect(x: 55, y: 20, width: 60, height: 15),
            CGRect(x: 15, y: 5, width: 30, height: 30),
        ])
    }

    @Test func placedLeavesWorkOverAnyTargetAndAnyLayoutMixesTypes() {
        let mixed = CascadingLayout(children: [
            AnyLayout(Placed("headline")),
            AnyLayout(DecoratingLayout(content: Placed("byline"), decoration: Placed("avatar"), inset: 0, spacing: 0)),
        ])
        var layout = mixed
        layout.layout(in: CGRect(x: 0, y: 0, width: 100, height: 40))
        #expect(layout.contents.map(\.target) == ["headline", "byline", "avatar"])
        #expect(layout.contents.map(\.frame) == [
            CGRect(x: 0, y: 0, width: 100, height: 20),
            CGRect(x: 20, y: 20, width: 80, height: 20),
            CGRect(x: 0, y: 20, width: 20, height: 20),
        ])
    }

    @Test func anItemsCellIdentifierSelectsItsLayout() {
        var layouts = CellLayouts<Box>()
        layouts.register(cell: "article") { parts in
            AnyLayout(DecoratingLayout(content: CascadingLayout(children: Array(parts.dropFirst())), decoration: parts[0]))
        }
        let document = ListDocument(id: "l", sections: [ListSection(id: "s", items: [
            ListItem(id: "1", cell: "article"), ListItem(id: "2", cell: "note"),
        ])])
        let source = ListDataSource(document: document)
        let parts = [Box(name: "icon"), Box(name: "title"), Box(name: "summary")]
        var article = layouts.layout(for: ItemPath(section: 0, item: 0), in: source, parts: parts)
        var note = layouts.layout(for: ItemPath(section: 0, item: 1), in: source, parts: parts)
        let cell = CGRect(x: 0, y: 0, width: 120, height: 40)
        article.layout(in: cell)
        note.layout(in: cell)
        #expect(article.contents.first { $0.name == "icon" }?.frame == CGRect(x: 5, y: 5, width: 30, height: 30))
        let third: CGFloat = 40.0 / 3
        let heights: [CGFloat] = note.contents.map(\.frame.height)
        #expect(heights == [third, third, third])
    }
}
