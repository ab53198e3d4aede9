import HTTPServer
import Testing
@testable import ListDeltaService

/// Reading and advancing the `lists` of a many-lists request.
@Suite struct ListCursorTests {
    @Test func readsEntriesInTheClientsOrder() throws {
        var cursor = try ListCursor(parsing: "b:5,a:0,c.d_e-f:12", maximum: 3)
        #expect(cursor.ids == ["b", "a", "c.d_e-f"])
        #expect(cursor["b"] == 5)
        #expect(cursor["a"] == 0)
        #expect(cursor["zz"] == nil)
        cursor["a"] = 7
        cursor["zz"] = 1  // not in the set: ignored
        #expect(cursor.description == "b:5,a:7,c.d_e-f:12")
    }

    @Test func resumesTheListsBothName() throws {
        var cursor = try ListCursor(parsing: "a:1,b:2,c:3", maximum: 10)
        cursor.resume(from: try ListCursor(parsing: "c:9,a:4,x:8", maximum: 10))
        #expect(cursor.description == "a:4,b:2,c:9")
    }

    /// Each malformed entry fails with a pointer to it.
    @Test(arguments: [
        ("a:1,b", "/lists/1"), ("a:1,:2", "/lists/1"), ("a:1,b:-1", "/lists/1"), ("a:1,b:1x", "/lists/1"),
        ("a:1,b:", "/lists/1"), ("x/y:1", "/lists/0"), ("..:1", "/lists/0"), ("a:1,,b:2", "/lists/1"),
        ("a:1,b:2,a:3", "/lists/2"), ("a:99999999999", "/lists/0"), (String(repeating: "x", count: 129) + ":1", "/lists/0"),
    ])
    func refusesAMalformedEntry(text: String, pointer: String) {
        #expect {
            try ListCursor(parsing: text, maximum: 100)
        } throws: { error in
            guard case .invalidParameter(_, let found) = error as? ServiceError else { return false }
            return found == pointer
        }
    }

    @Test func refusesTooManyListsAndNone() {
        #expect(throws: ServiceError.self) { try ListCursor(parsing: "a:1,b:1,c:1", maximum: 2) }
        #expect(throws: ServiceError.self) { try ListCursor(parsing: "", maximum: 2) }
        var problem = ""
        do throws(ServiceError) {
            _ = try ListCursor(parsing: "a:1,b:1,c:1", maximum: 2)
        } catch {
            problem = error.problem.detail
        }
        #expect(problem.contains("at most 2"))
    }
}
