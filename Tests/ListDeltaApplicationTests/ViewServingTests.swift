import ListDeltaCore
import ListDeltaStorage
import Testing
@testable import ListDeltaApplication

/// What `GET .../view` answers for a stored definition.
@Suite struct ViewServingTests {
    private func served(_ definition: String) -> String {
        let view = StoredView(list: "v", base: "b", definition: definition, generation: 1, baseStep: 14)
        return JSONWriter.string(of: ViewKeeper.served(view, limits: DocumentLimits()))
    }

    /// A release before `offset` stored definitions without it, some with `limit` 0: they are served as today's.
    @Test func aDefinitionStoredBeforeOffsetIsServedInTodaysForm() {
        #expect(served(#"{"of":"b","where":[],"sort":[{"path":"/id","order":"asc"}],"limit":0,"sections":"none"}"#)
            == #"{"of":"b","where":[],"sort":[{"path":"/id","order":"asc"}],"offset":0,"limit":0,"sections":"none","basedOn":7}"#)
    }

    @Test func aDefinitionThatCannotBeReadIsServedAsStored() {
        #expect(served(#"{"of":"b","limit":"x"}"#) == #"{"of":"b","limit":"x","basedOn":7}"#)
    }
}
