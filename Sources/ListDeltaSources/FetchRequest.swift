/// What a fetch asks for: where, and the validators of the last content it got (for a conditional request).
public struct FetchRequest: Sendable, Equatable {
    public var location: SourceLocation
    public var validators: FetchValidators

    public init(location: SourceLocation, validators: FetchValidators = FetchValidators()) {
        self.location = location
        self.validators = validators
    }
}
