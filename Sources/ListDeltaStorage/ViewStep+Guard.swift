extension ViewStep {
    /// Why a write at this step would not move a view forward, or `nil` when it would: the check every store makes
    /// under the view list's write serialization (``RevisionWrite/viewStep``,
    /// ``ViewStore/advanceView(list:step:atRevision:)``), with the same words in every store.
    ///
    /// - Parameter stored: The view's row as it is, `nil` when the list is not a view (any more).
    /// - Returns: ``StoreError/superseded(_:)`` saying why, or `nil`.
    public func refusal(stored: (generation: Int, baseStep: Int)?) -> StoreError? {
        guard let stored else { return .superseded("the view was detached") }
        guard stored.generation == generation else {
            return .superseded("the view was changed (generation \(stored.generation), not \(generation))")
        }
        guard stored.baseStep < baseStep else {
            return .superseded("the view is already at base step \(stored.baseStep) (this write is for step \(baseStep))")
        }
        return nil
    }
}
