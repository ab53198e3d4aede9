import Foundation
import ListDeltaCore
import ListDeltaKit

/// A view that prints every call it gets, as a `UICollectionView` would receive it, and hands it on to a
/// `SimulatedListView` that checks it against UIKit's rules.
@MainActor
final class BatchPrinter: BatchUpdatingView {
    private let checker = SimulatedListView()
    private(set) var violations = 0
    private var indent = ""

    var dataProvider: (@MainActor () -> any DataProvider)? {
        get { checker.dataProvider }
        set { checker.dataProvider = newValue }
    }

    init() {
        checker.onViolation = { [unowned self] violation in
            violations += 1
            emit("\(indent)!! \(violation)")
        }
    }

    /// Prints the update's heading.
    func begin(_ update: ListUpdate) {
        switch update.change {
        case .initial:
            emit("revision \(update.document.revision): first document")
        case .diff(let diff):
            emit("revision \(diff.to): diff from \(diff.from)")
        case .reset(let reset):
            emit("revision \(update.document.revision): reset from \(reset.from) (\(reset.reason.rawValue): \(reset.detail))")
        }
    }

    func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)?) {
        emit("performBatchUpdates {")
        indent = "  "
        checker.performBatchUpdates({
            updates?()
        }, completion: { [unowned self] finished in
            indent = ""
            emit("}")
            completion?(finished)
        })
    }

    func deleteSections(_ sections: IndexSet) { call("deleteSections(\(Array(sections)))") { $0.deleteSections(sections) } }
    func insertSections(_ sections: IndexSet) { call("insertSections(\(Array(sections)))") { $0.insertSections(sections) } }
    func moveSection(_ section: Int, toSection newSection: Int) {
        call("moveSection(\(section), toSection: \(newSection))") { $0.moveSection(section, toSection: newSection) }
    }
    func deleteItems(at indexPaths: [IndexPath]) { call("deleteItems(at: \(Self.paths(indexPaths)))") { $0.deleteItems(at: indexPaths) } }
    func insertItems(at indexPaths: [IndexPath]) { call("insertItems(at: \(Self.paths(indexPaths)))") { $0.insertItems(at: indexPaths) } }
    func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        call("moveItem(at: \(Self.path(indexPath)), to: \(Self.path(newIndexPath)))") { $0.moveItem(at: indexPath, to: newIndexPath) }
    }
    func reconfigureItems(at indexPaths: [IndexPath]) {
        call("reconfigureItems(at: \(Self.paths(indexPaths)))") { $0.reconfigureItems(at: indexPaths) }
    }
    func reloadSections(_ sections: IndexSet) { call("reloadSections(\(Array(sections)))") { $0.reloadSections(sections) } }
    func reloadData() { call("reloadData()") { $0.reloadData() } }

    private func call(_ text: String, _ forward: (SimulatedListView) -> Void) {
        emit(indent + text)
        forward(checker)
    }

    private static func path(_ path: IndexPath) -> String { "[\(path.map(String.init).joined(separator: ", "))]" }
    private static func paths(_ paths: [IndexPath]) -> String { "[\(paths.map(path).joined(separator: ", "))]" }
}
