import ListDeltaCore

extension JSONValue {
    /// A JSON text the application stored itself (a source's settings and state, a view's definition) read back
    /// as a value; `.null` when it cannot be read.
    /// - Complexity: O(*n*) in the length of `text`.
    init(stored text: String) {
        self = (try? JSONReader().read(text)) ?? .null
    }
}
