import ArgumentParser
import Foundation
import ListDeltaServer

/// `--config`, which every subcommand takes: the JSON configuration file the settings start from.
struct ConfigurationFileOption: ParsableArguments {
    @Option(help: "A JSON configuration file (default: Config/listdelta.json when present).")
    var config: String?

    /// The settings from the file, then the environment, then `flags`; checked when `validating` (for `serve`).
    /// - Throws: `ValidationError` with the reason, which ArgumentParser prints.
    func load(flags: FlagSettings = FlagSettings(), validating: Bool = false) throws -> ServiceConfiguration {
        do {
            return try ServiceConfiguration.load(
                file: config, environment: ProcessInfo.processInfo.environment, flags: flags, validating: validating)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
