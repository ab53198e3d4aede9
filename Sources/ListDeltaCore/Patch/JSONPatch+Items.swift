extension JSONPatch {
    /// `document` with the patch applied to its items directly, without turning the whole document into JSON and
    /// reading it back; `nil` when the patch needs that general path.
    ///
    /// It takes patches whose every operation addresses items: a whole item (`/sections/{s}/items/{i}`, `-` to
    /// append) or anything inside one (`/sections/{s}/items/{i}/model/...`). Only the items an operation touches
    /// become JSON (as the document serves them), and only they are checked again afterwards, the way a write is
    /// (members, id, type, cell, depth, and ids unique in the list); the rest stay typed and shared with
    /// `document`. It gives `nil`, and leaves the answer to the general path (apply to `document.jsonValue`, then
    /// validate), for an operation elsewhere (the root, `cells`, a section's header), for an operation that
    /// fails, and for a result that breaks a rule, so failures are reported exactly as the general path words
    /// them. Whenever it gives a document, the general path gives the same one.
    /// - Parameters:
    ///   - document: The current document (its `revision` is kept).
    ///   - limits: The limits a write is checked against.
    /// - Complexity: O(*n*ₛ + *k* · (*d* + *m*)) for *n*ₛ items in the sections the patch touches, *k*
    ///   operations, pointer depth *d* and touched items of size *m*; plus O(*n*) string comparisons over all
    ///   items when the patch brings in item ids that are new to the list.
    public func applyToItems(of document: ListDocument, limits: DocumentLimits) -> ListDocument? {
        var patcher = ItemPatcher(document: document, copyBudget: CopyBudget(limit: limits.maximumDocumentBytes))
        for operation in operations {
            guard patcher.apply(operation) else { return nil }
        }
        return patcher.finish(limits: limits)
    }
}

/// The state of one ``JSONPatch/applyToItems(of:limits:)``: the document, changed in place (only the item arrays
/// an operation touches are copied), and the items that became JSON, held aside by position.
private struct ItemPatcher {
    /// What a whole-item path holds: a typed item, or JSON after an operation changed or brought it.
    enum Slot {
        case item(ListItem)
        /// The item's JSON, and the id it had as a typed item of the document (`nil` for one the patch brought
        /// in): an unchanged id needs no uniqueness check.
        case json(JSONValue, formerID: String?)

        var json: JSONValue {
            switch self {
            case .item(let item): item.jsonValue
            case .json(let value, _): value
            }
        }
    }

    /// An item that is JSON for now; its place in `document` holds ``placeholder``.
    struct Pending {
        let section: Int
        var position: Int
        var json: JSONValue
        var formerID: String?
    }

    /// Where a pointer lands: an item, and the path inside it (empty for the whole item).
    struct Target {
        let section: Int
        let item: Int
        let rest: ArraySlice<String>

        var isWholeItem: Bool { rest.isEmpty }
        var inner: JSONPointer { JSONPointer(tokens: Array(rest)) }
    }

    /// Stands in the item arrays for an item that is JSON for now (no real item has an empty id).
    static let placeholder = ListItem(id: "")

    var document: ListDocument
    var pending: [Pending] = []
    /// What the patch's copies may still bring in (one past it leaves the answer to the general path).
    var copyBudget: CopyBudget

    init(document: ListDocument, copyBudget: CopyBudget) {
        self.document = document
        self.copyBudget = copyBudget
    }

    /// Applies one operation; `false` when it is not one of items or it fails.
    mutating func apply(_ operation: JSONPatchOperation) -> Bool {
        switch operation {
        case let .add(path, value):
            guard let target = target(path, allowEnd: true) else { return false }
            return add(.json(value, formerID: nil), at: target)
        case let .remove(path):
            guard let target = target(path, allowEnd: false) else { return false }
            return remove(at: target) != nil
        case let .replace(path, value):
            guard let target = target(path, allowEnd: false) else { return false }
            if target.isWholeItem {
                _ = take(target)
                insert(.json(value, formerID: nil), section: target.section, at: target.item)
                return true
            }
            return modify(target) { item throws(PatchStepFailure) in try item.apply(.replace(path: target.inner, value: value)) }
        case let .test(path, expected):
            guard let target = target(path, allowEnd: false) else { return false }
            return slot(target).json.value(at: target.inner) == expected
        case let .move(from, path):
            if from == path {
                guard let source = target(from, allowEnd: false) else { return false }
                return slot(source).json.value(at: source.inner) != nil
            }
            guard !from.isPrefix(of: path), let source = target(from, allowEnd: false), let moved = remove(at: source),
                let destination = target(path, allowEnd: true)
            else { return false }
            return add(moved, at: destination)
        case let .copy(from, path):
            guard let source = target(from, allowEnd: false), let copied = slot(source).json.value(at: source.inner),
                copyBudget.spend(on: copied), let destination = target(path, allowEnd: true)
            else { return false }
            return add(.json(copied, formerID: nil), at: destination)
        }
    }

    /// The item `path` names; `nil` when the path does not lead into an item.
    /// - Parameter allowEnd: Whether a whole-item path may name the end of the items (`-`, or their count).
    private func target(_ path: JSONPointer, allowEnd: Bool) -> Target? {
        let tokens = path.tokens
        guard tokens.count >= 4, tokens[0] == "sections", tokens[2] == "items",
            let section = JSONValue.arrayIndex(tokens[1], count: document.sections.count, allowEnd: false),
            let item = JSONValue.arrayIndex(
                tokens[3], count: document.sections[section].items.count, allowEnd: allowEnd && tokens.count == 4)
        else { return nil }
        return Target(section: section, item: item, rest: tokens[4...])
    }

    private func pendingIndex(_ section: Int, _ position: Int) -> Int? {
        pending.firstIndex { $0.section == section && $0.position == position }
    }

    /// The whole item `target` names.
    private func slot(_ target: Target) -> Slot {
        if let index = pendingIndex(target.section, target.item) {
            return .json(pending[index].json, formerID: pending[index].formerID)
        }
        return .item(document.sections[target.section].items[target.item])
    }

    /// Removes the whole item at `target` and gives it.
    private mutating func take(_ target: Target) -> Slot {
        let taken = slot(target)
        if let index = pendingIndex(target.section, target.item) { pending.remove(at: index) }
        document.sections[target.section].items.remove(at: target.item)
        for index in pending.indices where pending[index].section == target.section && pending[index].position > target.item {
            pending[index].position -= 1
        }
        return taken
    }

    private mutating func insert(_ slot: Slot, section: Int, at position: Int) {
        for index in pending.indices where pending[index].section == section && pending[index].position >= position {
            pending[index].position += 1
        }
        switch slot {
        case .item(let item):
            document.sections[section].items.insert(item, at: position)
        case .json(let json, let formerID):
            document.sections[section].items.insert(Self.placeholder, at: position)
            pending.append(Pending(section: section, position: position, json: json, formerID: formerID))
        }
    }

    private mutating func add(_ slot: Slot, at target: Target) -> Bool {
        if target.isWholeItem {
            insert(slot, section: target.section, at: target.item)
            return true
        }
        let value = slot.json
        return modify(target) { item throws(PatchStepFailure) in try item.apply(.add(path: target.inner, value: value)) }
    }

    /// Removes what `target` names: the whole item, or a value inside it (as JSON).
    private mutating func remove(at target: Target) -> Slot? {
        if target.isWholeItem { return take(target) }
        guard let removed = slot(target).json.value(at: target.inner) else { return nil }
        let done = modify(target) { item throws(PatchStepFailure) in try item.apply(.remove(path: target.inner)) }
        return done ? .json(removed, formerID: nil) : nil
    }

    /// Changes the JSON of the item `target` names with `body`; `false` when `body` fails.
    private mutating func modify(_ target: Target, _ body: (inout JSONValue) throws(PatchStepFailure) -> Void) -> Bool {
        guard case .json(var json, let formerID) = slot(target).asJSONWithFormerID else { return false }
        do {
            try body(&json)
        } catch {
            return false
        }
        if let index = pendingIndex(target.section, target.item) {
            pending[index].json = json
        } else {
            document.sections[target.section].items[target.item] = Self.placeholder
            pending.append(Pending(section: target.section, position: target.item, json: json, formerID: formerID))
        }
        return true
    }

    /// The patched document, once every item that became JSON reads back as a valid item with an id unique in the
    /// list; `nil` otherwise.
    consuming func finish(limits: DocumentLimits) -> ListDocument? {
        guard document.itemCount <= limits.maximumItems else { return nil }
        var newIDs: [String] = []
        for entry in pending {
            let read = try? WriteBodyReader.readItem(entry.json, cells: document.cells, limits: limits, at: JSONPointer()) { _ in true }
            guard let item = read else { return nil }
            if item.id != entry.formerID { newIDs.append(item.id) }
            document.sections[entry.section].items[entry.position] = item
        }
        guard newIDs.isEmpty || Self.areUnique(newIDs, in: document) else { return nil }
        return document
    }

    /// Whether each of `ids` names exactly one item of `document`.
    /// - Complexity: O(*n* · *k*) cheap comparisons for *k* ids up to 8, else O(*n*) hashes.
    private static func areUnique(_ ids: [String], in document: ListDocument) -> Bool {
        if ids.count <= 8 {
            // Lengths first: most ids differ in length or in a byte compared before Unicode rules apply.
            let lengths = ids.map(\.utf8.count)
            var counts = [Int](repeating: 0, count: ids.count)
            for section in document.sections {
                for item in section.items {
                    let length = item.id.utf8.count
                    for index in ids.indices where lengths[index] == length && ids[index] == item.id { counts[index] += 1 }
                }
            }
            return counts.allSatisfy { $0 == 1 }
        }
        let wanted = Set(ids)
        guard wanted.count == ids.count else { return false }
        var seen = 0
        for section in document.sections {
            for item in section.items where wanted.contains(item.id) { seen += 1 }
        }
        return seen == ids.count
    }
}

private extension ItemPatcher.Slot {
    /// The slot as JSON, keeping the id a typed item had.
    var asJSONWithFormerID: ItemPatcher.Slot {
        switch self {
        case .item(let item): .json(item.jsonValue, formerID: item.id)
        case .json: self
        }
    }
}
