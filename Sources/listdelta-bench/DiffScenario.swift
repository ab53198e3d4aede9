import ListDeltaCore

/// One input pair of the diff benchmark.
struct DiffScenario {
    let name: String
    let old: ListDocument
    let new: ListDocument

    static let names = ["small", "heavy", "shuffle", "sectioned"]

    /// Builds scenario `name` at `count` items, reproducibly from `seed`.
    static func make(_ name: String, count: Int, seed: UInt64) -> DiffScenario {
        var generator = SplitMix64(seed: seed)
        var next = count
        func freshItem() -> ListItem {
            next += 1
            return ListItem(id: "item-\(next)", type: "Text", cell: "TextCell", model: ["text": .string("new \(next)")])
        }
        let items = (0..<count).map { ListItem(id: "item-\($0)", type: "Text", cell: "TextCell", model: ["text": .string("item \($0)")]) }
        switch name {
        case "small", "heavy":
            let share = name == "small" ? 0.01 : 0.10
            let edits = Int(Double(count) * share)
            var list = items
            for _ in 0..<edits { list.remove(at: Int.random(in: list.indices, using: &generator)) }
            for _ in 0..<edits {
                let item = list.remove(at: Int.random(in: list.indices, using: &generator))
                list.insert(item, at: Int.random(in: 0...list.count, using: &generator))
            }
            for _ in 0..<edits { list.insert(freshItem(), at: Int.random(in: 0...list.count, using: &generator)) }
            for _ in 0..<edits { list[Int.random(in: list.indices, using: &generator)].model = ["text": "changed"] }
            return DiffScenario(name: name, old: flat(items, revision: 1), new: flat(list, revision: 2))
        case "shuffle":
            return DiffScenario(name: name, old: flat(items, revision: 1), new: flat(items.shuffled(using: &generator), revision: 2))
        default:
            let perSection = max(1, count / 100)
            var sections = (0..<100).map { index in
                ListSection(id: "section-\(index)", title: "Section \(index)", indexTitle: "\(index % 10)",
                            items: Array(items[(index * perSection)..<min(count, (index + 1) * perSection)]))
            }
            let old = ListDocument(id: "bench", revision: 1, sections: sections)
            let edits = count / 10 / 4
            for _ in 0..<edits {
                let section = Int.random(in: sections.indices, using: &generator)
                if !sections[section].items.isEmpty {
                    sections[section].items.remove(at: Int.random(in: sections[section].items.indices, using: &generator))
                }
            }
            for _ in 0..<edits {
                let from = Int.random(in: sections.indices, using: &generator)
                guard !sections[from].items.isEmpty else { continue }
                let item = sections[from].items.remove(at: Int.random(in: sections[from].items.indices, using: &generator))
                let to = Int.random(in: sections.indices, using: &generator)
                sections[to].items.insert(item, at: Int.random(in: 0...sections[to].items.count, using: &generator))
            }
            for _ in 0..<edits {
                let section = Int.random(in: sections.indices, using: &generator)
                sections[section].items.insert(freshItem(), at: Int.random(in: 0...sections[section].items.count, using: &generator))
            }
            for _ in 0..<edits {
                let section = Int.random(in: sections.indices, using: &generator)
                if !sections[section].items.isEmpty {
                    sections[section].items[Int.random(in: sections[section].items.indices, using: &generator)].model = ["text": "changed"]
                }
            }
            for _ in 0..<5 {
                let section = sections.remove(at: Int.random(in: sections.indices, using: &generator))
                sections.insert(section, at: Int.random(in: 0...sections.count, using: &generator))
            }
            return DiffScenario(name: name, old: old, new: ListDocument(id: "bench", revision: 2, sections: sections))
        }
    }

    private static func flat(_ items: [ListItem], revision: Int) -> ListDocument {
        ListDocument(id: "bench", kind: .array, revision: revision, sections: [ListSection(id: "main", items: items)])
    }

    /// The item ids in document order, the input of the standard library's differ.
    static func ids(_ document: ListDocument) -> [String] {
        document.sections.flatMap { $0.items.map(\.id) }
    }
}
