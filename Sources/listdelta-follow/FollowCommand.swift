public import ArgumentParser
import Foundation
import ListDeltaCore
import ListDeltaKit

/// `listdelta-follow URL LIST [--query Q]`: follows a list (or a live query of it) and prints each update as the UIKit batch a collection view would
/// perform, checked against UIKit's rules, then the list as text.
@main
struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listdelta-follow",
        abstract: "Follow a ListDelta list and print each update as a UIKit batch.",
        discussion: """
            Each update prints the calls a UICollectionView would get (performBatchUpdates with its deletes, \
            inserts and moves, then reloads and reconfigures), checked by a simulated view against UIKit's rules, \
            then the list as text. Retries and resets are printed on standard error. Stops on Ctrl-C, or after \
            --count updates.
            """)

    @Argument(help: "The server's base URL, e.g. http://127.0.0.1:8080.")
    var url: String

    @Argument(help: "The list id.")
    var list: String

    @Option(help: "How changes arrive: poll (long polls) or events (the event stream).")
    var mode: FollowOptions.Mode = .poll

    @Option(help: ArgumentHelp(
        "Follow a live query of the list instead of all of it: a view definition without of, as JSON.",
        discussion: #"For instance --query '{"where":[{"path":"/model/read","op":"eq","value":false}],"limit":20}'."#))
    var query: String?

    @Option(help: "Long-poll seconds (the server caps it).")
    var wait: Int = 25

    @Option(help: "Stop after this many updates (the first document counts as one).")
    var count: Int?

    @Flag(help: "Print only the batches, not the list after each.")
    var noRender = false

    mutating func validate() throws {
        guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw ValidationError("URL must be an http or https URL, e.g. http://127.0.0.1:8080")
        }
        guard ListDocument.isValidID(list) else { throw ValidationError("LIST: \(ListDocument.idRule)") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        guard (0...3600).contains(wait) else { throw ValidationError("--wait must be between 0 and 3600") }
        if let query {
            guard case .object? = try? JSONReader(maximumDepth: 16).read(query) else {
                throw ValidationError("--query must be a JSON object (a view definition without of)")
            }
        }
    }

    @MainActor
    mutating func run() async throws {
        var options = FollowOptions(mode: mode)
        options.wait = wait
        options.query = query
        options.onRetry = { error, delay in
            FileHandle.standardError.write(Data("retrying in \(delay.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))): \(error)\n".utf8))
        }
        let follower = ListFollower(baseURL: URL(string: url)!, listID: list, options: options)
        let printer = BatchPrinter()
        let binding = ListBinding(view: printer, dataSource: ListDataSource())
        printer.dataProvider = { binding.dataSource }
        var received = 0
        for await update in follower {
            printer.begin(update)
            binding.apply(update)
            emit(noRender ? "" : ListRendering.text(of: binding.dataSource))
            received += 1
            if let count, received >= count { break }
        }
        if printer.violations > 0 { throw ExitCode(2) }
    }
}

extension FollowOptions.Mode: ExpressibleByArgument {}
