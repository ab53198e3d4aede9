import Foundation
import Testing
import TextFormats

@Suite struct JSONStringTests {
    private func quoted(_ value: String) -> String {
        var bytes: [UInt8] = []
        JSONString.append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func escapesWhatJSONRequires() {
        #expect(quoted("plain") == #""plain""#)
        #expect(quoted("a\"b\\c") == #""a\"b\\c""#)
        #expect(quoted("line\nreturn\rtab\t") == #""line\nreturn\rtab\t""#)
        #expect(quoted("\u{0}\u{1F}") == #""\u0000\u001f""#)
        #expect(quoted("héllo ✓ 😀") == "\"héllo ✓ 😀\"")
    }

    /// Every string of control characters, quotes, backslashes and non-ASCII reads back as itself.
    @Test func foundationReadsBackWhatItWrites() throws {
        let alphabet: [Character] = ["a", "\"", "\\", "\n", "\u{0}", "\u{7}", "\u{1F}", "é", "😀", "/", " "]
        var seed: UInt64 = 42
        for _ in 0..<500 {
            var text = ""
            for _ in 0..<Int(seed % 12) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                text.append(alphabet[Int(seed >> 33) % alphabet.count])
            }
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let data = Data(quoted(text).utf8)
            let decoded = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) as? String
            #expect(decoded == text)
        }
    }
}
