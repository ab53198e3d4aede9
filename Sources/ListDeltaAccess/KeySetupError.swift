/// Why the configured JWT keys cannot be used; reported at start-up.
public struct KeySetupError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
