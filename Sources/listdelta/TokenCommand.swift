import ArgumentParser
import Foundation
import ListDeltaAccess
import ListDeltaServer

/// `listdelta token`: mints a scoped token with the configured `jwtSecret`, for curl users and scripts.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a scoped token (an HS256 JWT signed with jwtSecret).",
        discussion: """
            The secret comes from the configuration file or LISTDELTA_JWT_SECRET, as for serve. An application's \
            backend mints its own tokens with any JWT library; this is for scripts and trying things out.
            """
    )

    @OptionGroup var file: ConfigurationFileOption

    @Option(help: "read, or write (which includes read).")
    var scope: String = "read"

    @Option(name: .customLong("lists"), help: "A list-id pattern the token covers, * for any run of characters; repeat for several.")
    var lists: [String] = []

    @Option(help: "Seconds the token is valid (at most maxTokenLifetimeSeconds, a day by default).")
    var expiresIn: Int = 900

    func run() throws {
        let settings = try file.load()
        guard !settings.jwtSecret.isEmpty else { throw ValidationError("no jwtSecret is configured (LISTDELTA_JWT_SECRET)") }
        guard let scope = Grant.Scope(rawValue: scope) else { throw ValidationError("--scope must be read or write") }
        guard !lists.isEmpty else { throw ValidationError("name at least one --lists pattern (\"*\" for every list)") }
        if let bad = lists.first(where: { ListPattern($0) == nil }) {
            throw ValidationError("\"\(bad)\" is not a list-id pattern (A-Z a-z 0-9 . _ - and *)")
        }
        // A token the service would refuse is no use: it lives at most the configured maxTokenLifetimeSeconds.
        guard (1...settings.maxTokenLifetimeSeconds).contains(expiresIn) else {
            throw ValidationError("--expires-in must be 1...\(settings.maxTokenLifetimeSeconds) seconds (maxTokenLifetimeSeconds)")
        }
        let (secret, patterns, lifetime) = (settings.jwtSecret, lists, Double(expiresIn))
        let token = try waitForTask {
            try await TokenMinter.hs256(secret: secret).token(scope: scope, lists: patterns, lifetime: lifetime)
        }
        print(token)
    }
}
