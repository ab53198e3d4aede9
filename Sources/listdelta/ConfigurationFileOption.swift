import ArgumentParser
import ListDeltaServer

/// `--config`, which every subcommand takes: the JSON configuration file the settings start from.
struct ConfigurationFileOption: ParsableArguments {
    @Option(help: "A JSON configuration file (default: Config/listdelta.json when present).")
    var config: String?

    /// The settings from the file, then the environment (flags are the subcommand's to apply).
    func load() throws -> ServiceConfiguration {
        try ServiceConfiguration.load(file: config)
    }
}
