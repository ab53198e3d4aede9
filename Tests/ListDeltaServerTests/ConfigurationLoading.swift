@testable import ListDeltaServer

/// The settings as `listdelta serve` would load them from `file` (its text, or no file), `environment` and `flags`.
func loadConfiguration(
    file: String? = nil, environment: [String: String] = [:], flags: FlagSettings = FlagSettings()
) throws(ConfigurationError) -> ServiceConfiguration {
    try ServiceConfiguration.load(file: file == nil ? nil : "test.json", environment: environment, flags: flags) { _ in
        file.map { Array($0.utf8) }
    }
}

/// Why loading those settings is refused, or `nil` when it is not.
func configurationRefusal(file: String? = nil, environment: [String: String] = [:], flags: FlagSettings = FlagSettings()) -> String? {
    do {
        _ = try loadConfiguration(file: file, environment: environment, flags: flags)
        return nil
    } catch {
        return error.message
    }
}
