public import ListDeltaCore

/// Random documents and random edits of them, for replay tests.
public struct RandomDocuments {
    public var generator: SplitMix64
    private var nextID = 0

    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    public mutating func freshID(_ prefix: String) -> String {
        nextID += 1
        return "\(prefix)\(nextID)"
    }

    public mutating func item() -> ListItem {
        ListItem(id: freshID("i"), type: Bool.random(using: &generator) ? "Text" : nil, cell: nil, model: model())
    }

    public mutating func model() -> JSONValue {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return .null
        case 1: return ["text": .string(freshID("t"))]
        case 2: return ["n": .number(JSONNumber(Int.random(in: 0..<5, using: &generator))), "read": .bool(Bool.random(using: &generator))]
        default: return [.number(JSONNumber(Int.random(in: 0..<3, using: &generator)))]
        }
    }

    public mutating func document(id: String = "list", revision: Int = 1, sections: ClosedRange<Int> = 0...5, items: ClosedRange<Int> = 0...8) -> ListDocument {
        let sectionCount = Int.random(in: sections, using: &generator)
        let built = (0..<sectionCount).map { _ in
            ListSection(
                id: freshID("s"), title: Bool.random(using: &generator) ? freshID("T") : nil, indexTitle: nil,
                items: (0..<Int.random(in: items, using: &generator)).map { _ in item() }
            )
        }
        return ListDocument(id: id, kind: .sections, revision: revision, sections: built)
    }

    /// A random edit of `document`: every kind of change a list sees, at random rates.
    public mutating func edit(_ document: ListDocument, intensity: Double = 0.3) -> ListDocument {
        var result = document
        result.revision += 1
        let chance = { (rng: inout SplitMix64) in Double.random(in: 0..<1, using: &rng) < intensity }
        // Section deletes, renames, inserts.
        result.sections.removeAll { _ in chance(&generator) && chance(&generator) }
        for index in result.sections.indices where chance(&generator) {
            result.sections[index].header.title = freshID("R")
            if Bool.random(using: &generator) { result.sections[index].header.indexTitle = freshID("X") }
        }
        if chance(&generator) {
            let at = Int.random(in: 0...result.sections.count, using: &generator)
            result.sections.insert(ListSection(id: freshID("s"), title: "New", items: (0..<Int.random(in: 0...3, using: &generator)).map { _ in item() }), at: at)
        }
        // Section moves.
        if result.sections.count > 1, chance(&generator) {
            let from = Int.random(in: result.sections.indices, using: &generator)
            let section = result.sections.remove(at: from)
            result.sections.insert(section, at: Int.random(in: 0...result.sections.count, using: &generator))
        }
        guard !result.sections.isEmpty else { return result }
        // Item deletes, updates, inserts.
        for section in result.sections.indices {
            result.sections[section].items.removeAll { _ in chance(&generator) && chance(&generator) }
            for index in result.sections[section].items.indices where chance(&generator) && chance(&generator) {
                result.sections[section].items[index].model = model()
            }
            if chance(&generator) {
                let items = result.sections[section].items
                result.sections[section].items.insert(item(), at: Int.random(in: 0...items.count, using: &generator))
            }
        }
        // Item moves, within and across sections.
        let moves = Int.random(in: 0...3, using: &generator)
        for _ in 0..<moves {
            let from = Int.random(in: result.sections.indices, using: &generator)
            guard !result.sections[from].items.isEmpty else { continue }
            let item = result.sections[from].items.remove(at: Int.random(in: result.sections[from].items.indices, using: &generator))
            let to = Int.random(in: result.sections.indices, using: &generator)
            result.sections[to].items.insert(item, at: Int.random(in: 0...result.sections[to].items.count, using: &generator))
        }
        // Items escape a deleted section into survivors, or enter an inserted one.
        if document.sections.count > 0, chance(&generator) {
            let escaped = document.sections[Int.random(in: document.sections.indices, using: &generator)]
            let live = Set(result.sections.flatMap { $0.items.map(\.id) })
            if !result.sections.contains(where: { $0.id == escaped.id }) {
                for item in escaped.items.prefix(2) where !live.contains(item.id) {
                    let to = Int.random(in: result.sections.indices, using: &generator)
                    result.sections[to].items.append(item)
                }
            }
        }
        return result
    }
}
