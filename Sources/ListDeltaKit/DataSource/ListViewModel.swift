/// A view model an item's `model` decodes into: the type a cell is configured with.
///
/// `typeName` is the item `type` the server's documents give it, the key of the list's `cells` map, so a
/// registration ties one Swift type, one item type and one cell together.
public protocol ListViewModel: Decodable, Sendable {
    /// The item `type` this view model is for.
    static var typeName: String { get }
}
