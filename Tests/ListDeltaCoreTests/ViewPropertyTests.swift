import Testing
@testable import ListDeltaCore

/// Random bases, random definitions and random edit sequences, checked against a naive evaluation written here,
/// independently of the implementation: a plain filtering loop, a sort by a rank function, a dictionary grouping.
@Suite struct ViewPropertyTests {
    // MARK: - The naive evaluation

    private static func resolve(_ path: JSONPointer, _ item: ListItem, _ section: String) -> JSONValue? {
        if path.tokens == ["section"] { return .string(section) }
        return item.jsonValue.value(at: path)
    }

    private static func bytesLess(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }

    /// -1/0/1 when both numbers or both strings, else nil.
    private static func ordered(_ a: JSONValue, _ b: JSONValue) -> Int? {
        if case .number(let x) = a, case .number(let y) = b { return x.value < y.value ? -1 : (x.value == y.value ? 0 : 1) }
        if case .string(let x) = a, case .string(let y) = b { return bytesLess(x, y) ? -1 : (Array(x.utf8) == Array(y.utf8) ? 0 : 1) }
        return nil
    }

    private static func holds(_ condition: ViewCondition, _ item: ListItem, _ section: String) -> Bool {
        let found = resolve(condition.path, item, section)
        let value = condition.value
        switch condition.op {
        case .eq: return found != nil && found! == value
        case .ne: return found == nil || found! != value
        case .lt, .lte, .gt, .gte:
            guard let found, let order = ordered(found, value) else { return false }
            switch condition.op {
            case .lt: return order == -1
            case .lte: return order == -1 || order == 0
            case .gt: return order == 1
            default: return order == 1 || order == 0
            }
        case .in:
            guard let found, case .array(let options) = value else { return false }
            return options.contains { $0 == found }
        case .contains:
            if case .string(let text)? = found, case .string(let part) = value {
                let t = Array(text.utf8), p = Array(part.utf8)
                if p.isEmpty { return true }
                if p.count > t.count { return false }
                return (0...(t.count - p.count)).contains { Array(t[$0..<($0 + p.count)]) == p }
            }
            if case .array(let elements)? = found { return elements.contains { $0 == value } }
            return false
        case .prefix:
            guard case .string(let text)? = found, case .string(let start) = value else { return false }
            return Array(text.utf8).starts(with: Array(start.utf8))
        case .exists:
            return value == .bool(found != nil)
        }
    }

    private static func rank(_ value: JSONValue?) -> Int {
        switch value {
        case nil: 0
        case .null?: 1
        case .bool(false)?: 2
        case .bool(true)?: 3
        case .number?: 4
        case .string?: 5
        case .array?, .object?: 6
        }
    }

    /// Ascending comparison of two sort values: -1/0/1.
    private static func compare(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        if let a, let b, let order = ordered(a, b) { return order }
        return 0
    }

    static func naive(_ view: ViewDefinition, over base: ListDocument?, viewID: String, revision: Int, limits: DocumentLimits) -> ListDocument {
        var found: [(item: ListItem, section: String, position: Int)] = []
        for section in base?.sections ?? [] {
            for item in section.items where view.conditions.allSatisfy({ holds($0, item, section.id) }) {
                found.append((item, section.id, found.count))
            }
        }
        found.sort { lhs, rhs in
            for key in view.sort {
                var order = compare(resolve(key.path, lhs.item, lhs.section), resolve(key.path, rhs.item, rhs.section))
                if key.descending { order = -order }
                if order != 0 { return order < 0 }
            }
            return lhs.position < rhs.position
        }
        let shown = Array(found.dropFirst(view.offset).prefix(view.limit))
        var document = ListDocument(id: viewID, kind: .sections, revision: revision, cells: base?.cells)
        switch view.sections {
        case .keep:
            document.kind = base?.kind ?? .sections
            var bySection: [String: [ListItem]] = [:]
            for entry in shown { bySection[entry.section, default: []].append(entry.item) }
            for section in base?.sections ?? [] {
                if let items = bySection[section.id] { document.sections.append(ListSection(header: section.header, items: items)) }
            }
        case .none:
            document.kind = .array
            document.sections = [ListSection(id: "main", title: nil, indexTitle: nil, items: shown.map(\.item))]
        case .by(let path):
            var sectionOf: [String: Int] = [:]
            for entry in shown {
                let value = resolve(path, entry.item, entry.section)
                var text = "null"
                if let value { text = JSONWriter.string(of: value) }
                if case .string(let string)? = value, !string.isEmpty { text = string }
                var id = text
                while id.utf8.count > limits.maximumIDBytes { id.removeLast() }
                if let index = sectionOf[id] {
                    document.sections[index].items.append(entry.item)
                } else if document.sections.count < limits.maximumSections {
                    sectionOf[id] = document.sections.count
                    document.sections.append(ListSection(id: id, title: text, indexTitle: nil, items: [entry.item]))
                }
            }
        }
        return document
    }

    // MARK: - Random bases

    struct Generator {
        var random: SplitMix64
        var next = 0
        init(seed: UInt64) { random = SplitMix64(seed: seed) }

        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func pick<T>(_ options: [T]) -> T { options[int(0...(options.count - 1))] }
        mutating func fresh(_ prefix: String) -> String { next += 1; return "\(prefix)\(next)" }

        static let strings = ["", "a", "ab", "abc", "b", "B", "12", "2", "é", "e\u{301}", "zz", "a b", "ü"]
        static let numbers = ["0", "1", "2", "2.0", "-1", "1.5", "12", "1e1", "10"]

        mutating func number() -> JSONValue { .number(JSONNumber(validatedLiteral: pick(Self.numbers))) }

        mutating func scalar() -> JSONValue {
            switch int(0...4) {
            case 0: .null
            case 1: .bool(chance(0.5))
            case 2, 3: number()
            default: .string(pick(Self.strings))
            }
        }

        mutating func value(depth: Int = 0) -> JSONValue {
            switch depth < 2 ? int(0...7) : 0 {
            case 6:
                return .array((0..<int(0...3)).map { _ in value(depth: depth + 1) })
            case 7:
                var object = JSONObject()
                for key in ["x", "y"] where chance(0.6) { object[key] = value(depth: depth + 1) }
                return .object(object)
            default:
                return scalar()
            }
        }

        mutating func model() -> JSONValue {
            if chance(0.1) { return value(depth: 1) }
            var object = JSONObject()
            if chance(0.7) { object["n"] = chance(0.8) ? number() : scalar() }
            if chance(0.7) { object["s"] = chance(0.8) ? .string(pick(Self.strings)) : scalar() }
            if chance(0.6) { object["b"] = chance(0.8) ? .bool(chance(0.5)) : scalar() }
            if chance(0.5) { object["a"] = .array((0..<int(0...3)).map { _ in scalar() }) }
            if chance(0.4) { object["o"] = value(depth: 1) }
            if chance(0.3) { object["k"] = .string(pick(["c1", "c2", "c3", "a rather long category name", "x"])) }
            return .object(object)
        }

        mutating func item(id: String? = nil) -> ListItem {
            ListItem(id: id ?? fresh("i"), type: chance(0.5) ? pick(["A", "B"]) : nil, cell: chance(0.5) ? pick(["C1", "C2"]) : nil, model: model())
        }

        mutating func section() -> ListSection {
            ListSection(id: fresh("s"), title: chance(0.5) ? fresh("T") : nil, indexTitle: chance(0.3) ? "I" : nil,
                        items: (0..<int(0...8)).map { _ in item() })
        }

        mutating func document(sections: ClosedRange<Int> = 0...5) -> ListDocument {
            ListDocument(id: "b", kind: chance(0.5) ? .array : .sections, revision: 1, cells: chance(0.3) ? ["A": "C1"] : nil,
                         sections: (0..<int(sections)).map { _ in section() })
        }

        /// A random edit; `structural`: sections may be inserted, deleted or moved too.
        mutating func edit(_ old: ListDocument, structural: Bool) -> ListDocument {
            var new = old
            new.revision += 1
            if structural, chance(0.3), !new.sections.isEmpty { new.sections.remove(at: int(0...(new.sections.count - 1))) }
            if structural, chance(0.3) { new.sections.insert(section(), at: int(0...new.sections.count)) }
            if structural, chance(0.15), new.sections.count > 1 {
                let moved = new.sections.remove(at: int(0...(new.sections.count - 1)))
                new.sections.insert(moved, at: int(0...new.sections.count))
            }
            if chance(0.1) { new.kind = new.kind == .array ? .sections : .array }
            if chance(0.1) { new.cells = new.cells == nil ? ["B": "C2"] : nil }
            for index in new.sections.indices where chance(0.1) { new.sections[index].header.title = fresh("R") }
            guard !new.sections.isEmpty else { return new }
            for _ in 0..<int(0...4) {
                let s = int(0...(new.sections.count - 1))
                let count = new.sections[s].items.count
                switch int(0...4) {
                case 0: new.sections[s].items.insert(item(), at: int(0...count))
                case 1 where count > 0: new.sections[s].items.remove(at: int(0...(count - 1)))
                case 2 where count > 0:
                    let i = int(0...(count - 1))
                    switch int(0...3) {
                    case 0: new.sections[s].items[i].model = model()
                    case 1: new.sections[s].items[i].type = chance(0.5) ? pick(["A", "B"]) : nil
                    case 2: new.sections[s].items[i].cell = chance(0.5) ? pick(["C1", "C2"]) : nil
                    default: new.sections[s].items[i] = item(id: new.sections[s].items[i].id)
                    }
                case 3 where count > 0:
                    let moved = new.sections[s].items.remove(at: int(0...(count - 1)))
                    let to = int(0...(new.sections.count - 1))
                    new.sections[to].items.insert(moved, at: int(0...new.sections[to].items.count))
                default: break
                }
            }
            return new
        }

        // MARK: Random definitions

        static let paths = ["/id", "/type", "/cell", "/model", "/model/n", "/model/s", "/model/b", "/model/a", "/model/a/0",
                            "/model/a/1", "/model/o", "/model/o/x", "/model/k", "/model/missing", "/section"]

        mutating func path() -> JSONPointer { try! JSONPointer(parsing: pick(Self.paths)) }

        mutating func condition() -> ViewCondition {
            let op = pick(ViewOperator.allCases)
            let value: JSONValue
            switch op {
            case .eq, .ne, .contains: value = chance(0.8) ? scalar() : self.value(depth: 1)
            case .lt, .lte, .gt, .gte: value = chance(0.5) ? number() : .string(pick(Self.strings))
            case .in: value = .array((0..<int(0...4)).map { _ in scalar() })
            case .prefix: value = .string(pick(Self.strings))
            case .exists: value = .bool(chance(0.5))
            }
            return ViewCondition(path: path(), op: op, value: value)
        }

        mutating func definition(limits: DocumentLimits) -> ViewDefinition {
            let sections: ViewSections = switch int(0...2) {
            case 0: .keep
            case 1: .none
            default: .by(path())
            }
            return ViewDefinition(
                base: "b", conditions: (0..<int(0...2)).map { _ in condition() },
                sort: (0..<int(0...3)).map { _ in ViewSortKey(path: path(), descending: chance(0.5)) },
                offset: chance(0.6) ? 0 : int(0...12), limit: chance(0.4) ? limits.maximumItems : int(1...30), sections: sections)
        }
    }

    private static func limits(_ generator: inout Generator) -> DocumentLimits {
        var limits = DocumentLimits()
        if generator.chance(0.3) {
            limits.maximumIDBytes = 6
            limits.maximumSections = 3
        }
        return limits
    }

    // MARK: - Properties

    /// A document as compact JSON text: what failures print (and a stricter equality than `==`).
    private static func text(_ document: ListDocument) -> String { JSONWriter.string(of: document.jsonValue) }

    @Test(arguments: 0..<4)
    func evaluationEqualsTheNaiveEvaluation(batch: Int) throws {
        for seed in 0..<200 {
            var generator = Generator(seed: UInt64(batch * 1_000 + seed))
            let limits = Self.limits(&generator)
            let base = generator.chance(0.05) ? nil : generator.document()
            for _ in 0..<3 {
                let view = generator.definition(limits: limits)
                let document = view.evaluate(over: base, viewID: "v", revision: 7, limits: limits)
                let expected = Self.naive(view, over: base, viewID: "v", revision: 7, limits: limits)
                #expect(Self.text(document) == Self.text(expected), "seed \(batch * 1_000 + seed): \(JSONWriter.string(of: view.jsonValue))")
                // Definitions survive their canonical JSON.
                #expect(try ViewDefinition(json: view.jsonValue, viewID: "v", limits: limits) == view)
            }
        }
    }

    @Test(arguments: 0..<6)
    func anIndexFollowsRandomEditsOfItsBase(batch: Int) {
        for seed in 0..<60 {
            let seedValue = UInt64(10_000 + batch * 1_000 + seed)
            var generator = Generator(seed: seedValue)
            let limits = Self.limits(&generator)
            var document: ListDocument? = generator.document(sections: 1...5)
            let views = (0..<4).map { _ in generator.definition(limits: limits) }
            let chunk = generator.pick([2, 3, 8, 512])
            let first = ViewBase(document)
            var indexes = views.map { ViewIndex(definition: $0, base: first, limits: limits, maximumChunk: chunk) }
            for step in 0..<15 {
                let old = document
                switch generator.int(0...19) {
                case 0: document = nil
                case 1: document = old == nil ? generator.document() : old
                default: document = old.map { generator.edit($0, structural: generator.chance(0.3)) }
                }
                let new = ViewBase(document)
                let diff: ListDiff? = generator.chance(0.25) ? nil
                    : ListDiff(from: old ?? .empty(id: "b"), to: document ?? .empty(id: "b"))
                for index in indexes.indices {
                    let before = indexes[index].document(viewID: "v", revision: step)
                    let changed = indexes[index].update(to: new, diff: diff)
                    let after = indexes[index].document(viewID: "v", revision: step)
                    let expected = Self.naive(views[index], over: document, viewID: "v", revision: step, limits: limits)
                    #expect(Self.text(after) == Self.text(expected), "seed \(seedValue) step \(step) view \(index): \(JSONWriter.string(of: views[index].jsonValue))")
                    if !changed { #expect(Self.text(after) == Self.text(before), "seed \(seedValue) step \(step) view \(index): update said unchanged") }
                }
            }
        }
    }

    @Test func aLargeBaseIsUpdatedInPlaceOverManySteps() {
        var generator = Generator(seed: 77)
        let limits = DocumentLimits()
        var document = ListDocument(id: "b", sections: (0..<6).map { _ in
            ListSection(id: generator.fresh("s"), items: (0..<400).map { _ in generator.item() })
        })
        let views = [
            ViewDefinition(base: "b", sort: [ViewSortKey(path: JSONPointer(tokens: ["model", "n"]))], limit: 50, sections: .none),
            ViewDefinition(base: "b", conditions: [ViewCondition(path: JSONPointer(tokens: ["model", "b"]), op: .eq, value: true)],
                           sort: [ViewSortKey(path: JSONPointer(tokens: ["model", "s"]), descending: true)], limit: limits.maximumItems, sections: .keep),
            ViewDefinition(base: "b", limit: 30, sections: .by(JSONPointer(tokens: ["model", "k"]))),
        ]
        var indexes = views.map { ViewIndex(definition: $0, base: ViewBase(document), limits: limits, maximumChunk: 16) }
        var unchanged = 0
        for step in 0..<60 {
            let old = document
            document = generator.edit(old, structural: false)
            if step % 20 == 19 {
                // A large change (more than an eighth of the base): the index rebuilds.
                for section in document.sections.indices {
                    for index in document.sections[section].items.indices where generator.chance(0.3) {
                        document.sections[section].items[index].model = generator.model()
                    }
                }
            }
            let new = ViewBase(document)
            let diff = ListDiff(from: old, to: document)
            for index in indexes.indices {
                let before = indexes[index].document(viewID: "v", revision: 1)
                let changed = indexes[index].update(to: new, diff: diff)
                let after = indexes[index].document(viewID: "v", revision: 1)
                #expect(Self.text(after) == Self.text(Self.naive(views[index], over: document, viewID: "v", revision: 1, limits: limits)), "step \(step) view \(index)")
                if !changed {
                    unchanged += 1
                    #expect(Self.text(after) == Self.text(before), "step \(step) view \(index): update said unchanged")
                }
            }
        }
        // Most small edits leave a limited view alone.
        #expect(unchanged > 0)
    }

    @Test func viewsOfOneBaseUpdateConcurrentlySharingItsPositions() async {
        var generator = Generator(seed: 99)
        let limits = DocumentLimits()
        var document = generator.document(sections: 3...5)
        let views = (0..<16).map { _ in generator.definition(limits: limits) }
        var indexes = views.map { ViewIndex(definition: $0, base: ViewBase(document), limits: limits, maximumChunk: 4) }
        for step in 0..<10 {
            let old = document
            document = generator.edit(old, structural: false)
            let shared = ViewBase(document)
            let diff = ListDiff(from: old, to: document)
            indexes = await withTaskGroup(of: (Int, ViewIndex).self) { group in
                for (position, index) in indexes.enumerated() {
                    group.addTask {
                        var index = index
                        index.update(to: shared, diff: diff)
                        return (position, index)
                    }
                }
                var updated = indexes
                for await (position, index) in group { updated[position] = index }
                return updated
            }
            for (position, index) in indexes.enumerated() {
                let expected = Self.naive(views[position], over: document, viewID: "v", revision: step, limits: limits)
                #expect(Self.text(index.document(viewID: "v", revision: step)) == Self.text(expected), "step \(step) view \(position)")
            }
        }
    }
}
