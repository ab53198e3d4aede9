import Foundation

/// Writes `text` and a line feed to standard output at once, unbuffered: a follower's output is read as it
/// comes, also through a pipe.
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
