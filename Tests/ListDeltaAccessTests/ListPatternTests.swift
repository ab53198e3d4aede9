import Testing
@testable import ListDeltaAccess

@Suite struct ListPatternTests {
    @Test(arguments: [
        ("team-7-*", "team-7-inbox", true), ("team-7-*", "team-7-", true), ("team-7-*", "team-70", false),
        ("team-7-*", "xteam-7-a", false), ("*", "anything", true), ("a", "a", true), ("a", "ab", false),
        ("*-inbox", "u1-inbox", true), ("*-inbox", "u1-inbox2", false), ("a*b*c", "abc", true), ("a*b*c", "a-b-b-c", true),
        ("a*b*c", "acb", false), ("a*a", "a", false), ("a*a", "aa", true), ("*a*", "xyz", false), ("*a*", "xay", true),
        ("**", "", true), ("a**b", "ab", true), ("u.1_x-*", "u.1_x-9", true), ("ab*ab", "ab", false), ("ab*ab", "abab", true),
        ("a*b*a", "aba", true), ("a*b*a", "ab", false),
    ])
    func matches(pattern: String, id: String, expected: Bool) throws {
        let compiled = try #require(ListPattern(pattern))
        #expect(compiled.matches(id) == expected, "\(pattern) ~ \(id)")
    }

    @Test(arguments: ["", "a/b", "a b", "é", "a?", String(repeating: "a", count: 257)])
    func refusesWhatIsNotAPattern(_ text: String) {
        #expect(ListPattern(text) == nil)
    }

    @Test func grantCoversByAnyPattern() throws {
        let grant = Grant(scope: .read, patterns: [try #require(ListPattern("a-*")), try #require(ListPattern("b"))], expiresAt: 100, notBefore: nil)
        #expect(grant.covers("a-1") && grant.covers("b") && !grant.covers("b-1") && !grant.coversEveryList)
        #expect(Grant.everything.covers("anything") && Grant.everything.coversEveryList)
        #expect(grant.secondsLeft(at: 40) == 60 && Grant.everything.secondsLeft(at: 40) == nil)
    }
}
