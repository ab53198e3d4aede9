import Foundation
public import ListDeltaCore

/// Which cell shows an item, keyed by view-model type as the server's `cells` map is.
///
/// An item's identifier is resolved in this order:
/// 1. the cell registered here for the item's `type` (the app knows which cells it has registered with its view);
/// 2. the item's `cell` as the server sends it (given in the write, or resolved from the list's `cells` map);
/// 3. the list's `cells` map for the item's `type` (for documents read from elsewhere);
/// 4. `fallback`.
public struct CellRegistry: Sendable {
    private struct Registration: Sendable {
        var cell: String
        var decode: (@Sendable (Data) throws -> any ListViewModel)?
    }

    private var registrations: [String: Registration] = [:]
    /// The identifier for an item nothing else names. Default `"cell"`.
    public var fallback: String

    /// An empty registry.
    public init(fallback: String = "cell") {
        self.fallback = fallback
    }

    /// Shows items of `Model.typeName` in `cell`, and decodes their models as `Model`.
    public mutating func register<Model: ListViewModel>(_ model: Model.Type, cell: String) {
        registrations[Model.typeName] = Registration(cell: cell) { data in try JSONDecoder().decode(Model.self, from: data) }
    }

    /// Shows items of `type` in `cell`, without a view model.
    public mutating func register(type: String, cell: String) {
        registrations[type] = Registration(cell: cell, decode: nil)
    }

    /// The cell identifier for `item` of `document`.
    /// - Complexity: O(1) expected.
    public func cellIdentifier(for item: ListItem, in document: ListDocument) -> String {
        if let type = item.type, let registration = registrations[type] { return registration.cell }
        if let cell = item.cell { return cell }
        if let type = item.type, let cell = document.cells?[type] { return cell }
        return fallback
    }

    /// `item`'s model decoded as the view model registered for its `type`, or `nil` when none is.
    /// - Throws: the decoder's error when the model does not decode.
    public func viewModel(for item: ListItem) throws -> (any ListViewModel)? {
        guard let type = item.type, let decode = registrations[type]?.decode else { return nil }
        return try decode(Data(JSONWriter.bytes(of: item.model)))
    }
}
