/// Step 4 of the normative procedure, on any section storage.
enum ReplicaUpdates {
    /// Replaces section headers at new indexes.
    static func updateHeaders<Section: ReplicaSection>(_ updates: [SectionUpdate], in sections: inout [Section]) throws(DiffApplicationError) {
        for update in updates {
            guard sections.indices.contains(update.at) else {
                throw DiffApplicationError("updated section \(update.at) is out of range")
            }
            guard sections[update.at].header.id == update.header.id else {
                throw DiffApplicationError("updated section \(update.at) is \"\(sections[update.at].header.id)\", not \"\(update.header.id)\"")
            }
            sections[update.at].header = update.header
        }
    }

    /// Replaces items at new paths.
    static func reconfigure<Section: ReplicaSection>(_ updates: [ItemUpdate], in sections: inout [Section]) throws(DiffApplicationError) {
        for update in updates {
            let path = update.at
            guard sections.indices.contains(path.section), path.item >= 0, path.item < sections[path.section].items.count else {
                throw DiffApplicationError("updated item \(path) is out of range")
            }
            guard sections[path.section].items[path.item].id == update.item.id else {
                throw DiffApplicationError("updated item \(path) is not \"\(update.item.id)\"")
            }
            sections[path.section].items[path.item] = update.item
        }
    }
}
