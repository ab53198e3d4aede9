import Testing
@testable import ListDeltaCore

@Suite struct FactoryTests {
    private let factory = DataProviderFactory()

    private func make(_ text: String, id: String = "fruits") throws -> ListDocument {
        try factory.makeDocument(from: try JSONReader().read(text), listID: id, revision: 1)
    }

    private func rejection(_ text: String, limits: DocumentLimits = DocumentLimits()) throws -> DocumentError? {
        do {
            _ = try DataProviderFactory(limits: limits).makeDocument(from: try JSONReader().read(text), listID: "fruits", revision: 1)
            return nil
        } catch let error as DocumentError {
            return error
        }
    }

    @Test func shortArrayFormIsOneSectionNamedMain() throws {
        let document = try make(#"{"kind":"array","title":"Fruits","items":[{"id":"a","model":{"name":"Apple"}}]}"#)
        #expect(document.kind == .array)
        #expect(document.sections.count == 1)
        #expect(document.sections[0].header == SectionHeader(id: "main", title: "Fruits", indexTitle: "F"))
        #expect(document.sections[0].items == [ListItem(id: "a", model: ["name": "Apple"])])
    }

    @Test func arrayWithoutTitleHasNoIndexTitleAndKindIsInferred() throws {
        let document = try make(#"{"items":[]}"#)
        #expect(document.kind == .array)
        #expect(document.sections[0].header == SectionHeader(id: "main", title: nil, indexTitle: nil))
    }

    @Test func indexTitleIsTheFirstCharacterNotByte() throws {
        let document = try make(#"{"title":"Éclairs 🍰","items":[]}"#)
        #expect(document.sections[0].header.indexTitle == "É")
    }

    @Test func longFormIsKeptAsGivenAndRoundTrips() throws {
        let text = #"{"id":"fruits","kind":"array","revision":9,"sections":[{"id":"all","title":"Fruits","indexTitle":"*","items":[{"id":"a","cell":null,"model":null}]}]}"#
        let document = try make(text)
        #expect(document.sections[0].header == SectionHeader(id: "all", title: "Fruits", indexTitle: "*"))
        #expect(document.revision == 1)
        let again = try factory.makeDocument(from: document.jsonValue, listID: "fruits", revision: 1)
        #expect(again == document)
    }

    @Test func sectionsFormAndProviders() throws {
        let document = try make(#"{"sections":[{"id":"t","title":"Today","indexTitle":"T","items":[{"id":"1"}]},{"id":"l","items":[]},{"id":"z","indexTitle":"T"}]}"#)
        #expect(document.kind == .sections)
        let (provider, _) = try factory.makeProvider(from: document.jsonValue, listID: "fruits")
        #expect(provider.numberOfSections == 3)
        #expect(provider.numberOfItems(inSection: 0) == 1)
        #expect(provider.item(at: ItemPath(section: 0, item: 0)).id == "1")
        #expect(provider.title(forSection: 0) == "Today")
        #expect(provider.sectionIndexTitles == ["T", "T"])
    }

    @Test func cellsAreResolvedFromTheRegistry() throws {
        let document = try make(#"{"cells":{"Text":"TextCell"},"items":[{"id":"a","type":"Text"},{"id":"b","type":"Text","cell":"Custom"},{"id":"c","type":"Text","cell":null}]}"#)
        #expect(document.sections[0].items.map(\.cell) == ["TextCell", "Custom", nil])
        #expect(document.cells == ["Text": "TextCell"])
    }

    @Test(arguments: [
        (#"[]"#, "", DocumentError.Code.wrongType),
        (#"{"id":"other","items":[]}"#, "/id", .invalidID),
        (#"{"kind":"list","items":[]}"#, "/kind", .invalidKind),
        (#"{}"#, "", .missingMember),
        (#"{"items":[],"sections":[]}"#, "/items", .invalidKind),
        (#"{"kind":"array","sections":[]}"#, "/sections", .invalidKind),
        (#"{"kind":"sections","sections":[],"items":[]}"#, "/items", .invalidKind),
        (#"{"kind":"sections","title":"x","sections":[]}"#, "/title", .invalidKind),
        (#"{"items":[],"extra":1}"#, "/extra", .unknownMember),
        (#"{"items":{}}"#, "/items", .wrongType),
        (#"{"items":[1]}"#, "/items/0", .wrongType),
        (#"{"items":[{"model":1}]}"#, "/items/0", .missingMember),
        (#"{"items":[{"id":7}]}"#, "/items/0/id", .wrongType),
        (#"{"items":[{"id":""}]}"#, "/items/0/id", .invalidID),
        (#"{"items":[{"id":"a"},{"id":"b"},{"id":"a"}]}"#, "/items/2/id", .duplicateID),
        (#"{"sections":[{"id":"s","items":[{"id":"a"}]},{"id":"t","items":[{"id":"a"}]}]}"#, "/sections/1/items/0/id", .duplicateID),
        (#"{"sections":[{"id":"s"},{"id":"s"}]}"#, "/sections/1/id", .duplicateID),
        (#"{"sections":[{"id":"s","title":3}]}"#, "/sections/0/title", .wrongType),
        (#"{"sections":[{"id":"s","indexTitle":[]}]}"#, "/sections/0/indexTitle", .wrongType),
        (#"{"sections":[{"id":"s","colour":"red"}]}"#, "/sections/0/colour", .unknownMember),
        (#"{"items":[{"id":"a","type":2}]}"#, "/items/0/type", .wrongType),
        (#"{"items":[{"id":"a","cell":false}]}"#, "/items/0/cell", .wrongType),
        (#"{"items":[{"id":"a","size":1}]}"#, "/items/0/size", .unknownMember),
        (#"{"cells":[],"items":[]}"#, "/cells", .wrongType),
        (#"{"cells":{"T":1},"items":[]}"#, "/cells/T", .wrongType),
        (#"{"cells":{},"items":[{"id":"a","type":"Text"}]}"#, "/items/0/type", .unknownCellType),
        (#"{"items":[],"title":5}"#, "/title", .wrongType),
    ])
    func rejectionsCarryTheirPointer(body: String, pointer: String, code: DocumentError.Code) throws {
        let error = try #require(try rejection(body))
        #expect(error.code == code)
        #expect(error.pointer.description == pointer)
    }

    @Test func idLengthIsCountedInUTF8Bytes() throws {
        let ok = String(repeating: "é", count: 128)  // 256 bytes
        let tooLong = String(repeating: "é", count: 129)
        #expect(try rejection(#"{"items":[{"id":"\#(ok)"}]}"#) == nil)
        #expect(try rejection(#"{"items":[{"id":"\#(tooLong)"}]}"#)?.code == .invalidID)
        #expect(try rejection(#"{"sections":[{"id":"\#(tooLong)"}]}"#)?.pointer.description == "/sections/0/id")
    }

    @Test func limitsOnSectionsItemsAndDepth() throws {
        var limits = DocumentLimits()
        limits.maximumSections = 2
        limits.maximumItems = 3
        limits.maximumDepth = 8
        let sections = try #require(try rejection(#"{"sections":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#, limits: limits))
        #expect(sections.code == .tooManySections && sections.pointer.description == "/sections")
        let items = try #require(try rejection(#"{"sections":[{"id":"a","items":[{"id":"1"},{"id":"2"}]},{"id":"b","items":[{"id":"3"},{"id":"4"}]}]}"#, limits: limits))
        #expect(items.code == .tooManyItems && items.pointer.description == "/sections/1/items")
        let deep = try #require(try rejection(#"{"items":[{"id":"1","model":[[[[1]]]]}]}"#, limits: limits))
        #expect(deep.code == .tooDeep && deep.pointer.description == "/items/0/model")
        #expect(try rejection(#"{"items":[{"id":"1","model":[[[1]]]}]}"#, limits: limits) == nil)
    }
}
