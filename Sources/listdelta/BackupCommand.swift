import ArgumentParser
import ListDeltaServer

/// `listdelta backup`: a consistent copy of the SQLite store, taken while the service runs.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite store, as of one instant, while the service goes on writing.",
        discussion: """
            The data directory comes from the configuration file, the environment and --data, as for serve. The \
            copy holds every revision acknowledged before the backup began. To serve it, put it in an empty \
            directory as listdelta.sqlite (or name that directory as --to) and run serve --data there. PostgreSQL \
            is backed up with pg_dump instead (see docs/deployment.md, Backups).
            """
    )

    @OptionGroup var file: ConfigurationFileOption

    @Option(help: "The data directory holding the SQLite database (default ./data).")
    var data: String?

    @Option(help: "The file to create, or an existing directory to create listdelta.sqlite in. It must not exist.")
    var to: String

    func run() throws {
        var settings = try file.load()
        if let data { settings.dataDirectory = data }
        do {
            let copy = try settings.backupStore(to: to)
            print("backed up \(settings.dataDirectory) to \(copy.path) (\(copy.bytes) bytes)")
        } catch {
            printError("listdelta backup: \(error)")
            throw ExitCode.failure
        }
    }
}
