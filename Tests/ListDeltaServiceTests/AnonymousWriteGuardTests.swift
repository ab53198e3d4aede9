import HTTPServer
import Testing
@testable import ListDeltaService

/// Where anonymous writes may come from: no other origin, and (bound to loopback) loopback names only.
@Suite struct AnonymousWriteGuardTests {
    private func check(_ headers: HTTPHeaders, loopback: Bool = true) -> Int? {
        let request = HTTPRequest(method: .PUT, path: "/v1/lists/a", rawPath: "/v1/lists/a", headers: headers)
        do {
            try AnonymousWriteGuard(requiresLoopbackHost: loopback).check(request)
            return nil
        } catch {
            return error.problem.status
        }
    }

    @Test func curlAndTheInstancesOwnPageMayWrite() {
        #expect(check(["Host": "127.0.0.1:8080"]) == nil)
        #expect(check(["Host": "localhost:8080", "Origin": "http://localhost:8080"]) == nil)
        #expect(check(["Host": "[::1]:8080", "Origin": "http://[::1]:8080"]) == nil)
        #expect(check(["Host": "127.0.0.1", "Origin": "http://127.0.0.1"]) == nil)
        #expect(check(["Host": "app.localhost:9000"]) == nil)
        #expect(check([:]) == nil)
    }

    @Test func anotherOriginMayNot() {
        #expect(check(["Host": "127.0.0.1:8080", "Origin": "https://attacker.example"]) == 403)
        #expect(check(["Host": "127.0.0.1:8080", "Origin": "http://127.0.0.1:9090"]) == 403)
        #expect(check(["Host": "127.0.0.1:8080", "Origin": "null"]) == 403)
        #expect(check(["Host": "127.0.0.1:8080", "Origin": "http://localhost:8080"]) == 403)
        #expect(check(["Origin": "http://127.0.0.1:8080"]) == 403)
    }

    @Test func onLoopbackOnlyLoopbackNamesAreServed() {
        #expect(check(["Host": "attacker.example"]) == 421)
        #expect(check(["Host": "rebind.attacker.example:8080", "Origin": "http://rebind.attacker.example:8080"]) == 421)
        #expect(check(["Host": "127.0.0.1.attacker.example"]) == 421)
        #expect(check(["Host": "128.0.0.1:8080"]) == 421)
        // An instance that allows anonymous writes off loopback serves its own names, still same-origin only.
        #expect(check(["Host": "lists.internal:8080", "Origin": "http://lists.internal:8080"], loopback: false) == nil)
        #expect(check(["Host": "lists.internal:8080", "Origin": "https://attacker.example"], loopback: false) == 403)
    }
}
