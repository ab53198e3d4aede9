import ListDeltaCore
import ListDeltaKit

/// The list as a person reads it: each section's title, then its items, one per line.
enum ListRendering {
    /// The text of `dataSource`: a section's title (or id) with its index title and item count, then for each item
    /// its index, its id, the first of `title`, `name` or `text` in its model, and its cell identifier.
    static func text(of dataSource: ListDataSource) -> String {
        var text = ""
        for section in 0..<dataSource.numberOfSections {
            let header = dataSource.header(forSection: section)
            let count = dataSource.numberOfItems(inSection: section)
            text += "§ \(header.title ?? header.id)"
            if let index = header.indexTitle { text += " [\(index)]" }
            text += " (\(count) item\(count == 1 ? "" : "s"))\n"
            for index in 0..<count {
                let path = ItemPath(section: section, item: index)
                let item = dataSource.item(at: path)
                text += "  \(index). \(item.id)"
                if let label = label(of: item.model) { text += " \u{2014} \(label)" }
                text += "  <\(dataSource.cellIdentifier(at: path))>\n"
            }
        }
        return text
    }

    private static func label(of model: JSONValue) -> String? {
        guard case .object(let object) = model else {
            if case .string(let string) = model { return string }
            return nil
        }
        for key in ["title", "name", "text"] {
            if case .string(let string)? = object[key] { return string }
        }
        return nil
    }
}
