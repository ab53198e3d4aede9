import Foundation
import ListDeltaCore
import Testing
@testable import ListDeltaKit

struct Article: ListViewModel, Equatable {
    static let typeName = "Article"
    var title: String
    var stars: Int
}

@Suite struct DataSourceTests {
    let document = ListDocument(id: "news", kind: .sections, revision: 4, cells: ["Article": "server-article", "Note": "server-note"], sections: [
        ListSection(id: "today", title: "Today", indexTitle: "T", items: [
            ListItem(id: "a1", type: "Article", cell: "server-article", model: ["title": "Swift 7", "stars": 5]),
            ListItem(id: "n1", type: "Note", cell: "custom-note", model: "remember"),
        ]),
        ListSection(id: "older", title: nil, indexTitle: nil, items: [
            ListItem(id: "x", type: "Unknown"),
            ListItem(id: "y", type: "Note"),
        ]),
    ])

    @Test func answersTheQuestionsOfAListView() {
        let source = ListDataSource(document: document)
        #expect(source.numberOfSections == 2)
        #expect(source.numberOfItems(inSection: 0) == 2 && source.numberOfItems(inSection: 9) == 0)
        #expect(source.item(at: ItemPath(section: 1, item: 1)).id == "y")
        #expect(source.title(forSection: 0) == "Today" && source.title(forSection: 1) == nil)
        #expect(source.sectionIndexTitles == ["T"])
        #expect(source.itemIfPresent(at: ItemPath(section: 1, item: 2)) == nil)
        // The same DataProvider the server reads writes through: it rebuilds the document it answers from.
        #expect(source.makeDocument(id: "news", revision: 4, cells: document.cells) == document)
    }

    @Test func cellIdentifiersResolveByViewModelTypeThenItemThenRegistry() {
        var cells = CellRegistry(fallback: "plain")
        cells.register(Article.self, cell: "ArticleCell")
        let source = ListDataSource(document: document, cells: cells)
        #expect(source.cellIdentifier(at: ItemPath(section: 0, item: 0)) == "ArticleCell")
        #expect(source.cellIdentifier(at: ItemPath(section: 0, item: 1)) == "custom-note")
        #expect(source.cellIdentifier(at: ItemPath(section: 1, item: 0)) == "plain")
        #expect(source.cellIdentifier(at: ItemPath(section: 1, item: 1)) == "server-note")
    }

    @Test func viewModelsDecodeAsTheirRegisteredType() throws {
        var cells = CellRegistry()
        cells.register(Article.self, cell: "ArticleCell")
        let source = ListDataSource(document: document, cells: cells)
        #expect(try source.viewModel(at: ItemPath(section: 0, item: 0)) as? Article == Article(title: "Swift 7", stars: 5))
        #expect(try source.viewModel(at: ItemPath(section: 0, item: 1)) == nil)
        var broken = document
        broken.sections[0].items[0].model = ["title": 3]
        #expect(throws: DecodingError.self) { try ListDataSource(document: broken, cells: cells).viewModel(at: ItemPath(section: 0, item: 0)) }
    }
}
