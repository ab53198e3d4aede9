extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space, and list separators in
    /// configuration values).
    /// - Complexity: O(*n*) in the white space removed.
    public func trimmingSpaces() -> Substring {
        var characters = Substring(self)
        while let first = characters.first, first == " " || first == "\t" { characters.removeFirst() }
        while let last = characters.last, last == " " || last == "\t" { characters.removeLast() }
        return characters
    }
}
