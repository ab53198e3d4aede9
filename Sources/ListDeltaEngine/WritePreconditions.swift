/// The preconditions of a write (HTTP's `If-Match` and `If-None-Match`, in the engine's terms).
public struct WritePreconditions: Sendable {
    /// `If-Match`: the revisions its strong tags name (any one will do; empty when none can match), or `nil`
    /// without the field.
    public var ifMatch: [Int]?
    /// `true` when `If-Match: *` (the list must exist).
    public var ifMatchAny = false
    /// `If-None-Match: *`: create only.
    public var createOnly = false

    public init(ifMatch: [Int]? = nil, ifMatchAny: Bool = false, createOnly: Bool = false) {
        self.ifMatch = ifMatch
        self.ifMatchAny = ifMatchAny
        self.createOnly = createOnly
    }

    /// `true` when the write names no revision it builds on: of racing writers through several instances, the one
    /// that loses is tried again on the winner's revision instead of failing.
    public var retriesAfterRace: Bool { ifMatch == nil && !createOnly }
}
