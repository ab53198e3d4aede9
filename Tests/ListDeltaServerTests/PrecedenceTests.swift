import HTTPServer
import ListDeltaApplication
@testable import ListDeltaServer
import ListDeltaService
import Testing

/// docs/configuration.md: where settings come from, in order, and the rules each source is read by (the table of
/// "Why not swift-configuration" is the list of what these pin down).
@Suite struct PrecedenceTests {
    @Test func flagsOverTheEnvironmentOverTheFileOverTheDefaults() throws {
        #expect(try loadConfiguration().port == 8080)
        #expect(try loadConfiguration(file: #"{"port": 9000}"#).port == 9000)
        #expect(try loadConfiguration(file: #"{"port": 9000}"#, environment: ["LISTDELTA_PORT": "9001"]).port == 9001)
        var flags = FlagSettings()
        flags.port = 9002
        #expect(try loadConfiguration(file: #"{"port": 9000}"#, environment: ["LISTDELTA_PORT": "9001"], flags: flags).port == 9002)
        // Each source sets only what it names.
        let mixed = try loadConfiguration(file: #"{"port": 9000, "retention": 5}"#, environment: ["LISTDELTA_RETENTION": "6"], flags: flags)
        #expect((mixed.port, mixed.retention, mixed.cursorSeconds) == (9002, 6, 20))
    }

    @Test func aBadValueIsRefusedEvenWhereALaterSourceSetsTheSettingAgain() {
        var flags = FlagSettings()
        flags.port = 9002
        #expect(configurationRefusal(environment: ["LISTDELTA_PORT": "eighty"], flags: flags) == "LISTDELTA_PORT: port must be an integer")
        #expect(configurationRefusal(file: #"{"port": "x"}"#, environment: ["LISTDELTA_PORT": "9001"]) == "test.json: port must be an integer")
    }

    @Test func listsFromTheEnvironmentLeaveOutEmptyItems() throws {
        #expect(try loadConfiguration(environment: ["LISTDELTA_CORS_ORIGINS": ""]).corsOrigins == [])
        #expect(try loadConfiguration(environment: ["LISTDELTA_WRITE_TOKENS": "a,,b"]).writeTokens == ["a", "b"])
    }

    @Test func valuesAreReadAsWrittenNeverCoerced() {
        #expect(configurationRefusal(environment: ["LISTDELTA_DURABLE_SYNC": "yes"]) != nil)
        #expect(configurationRefusal(environment: ["LISTDELTA_DURABLE_SYNC": "1"]) != nil)
        #expect(configurationRefusal(environment: ["LISTDELTA_PORT": "+5"]) != nil)
        #expect(configurationRefusal(file: #"{"port": true}"#) == "test.json: port must be an integer")
        #expect(configurationRefusal(file: #"{"durableSync": 1}"#) == "test.json: durableSync must be true or false")
        #expect(configurationRefusal(file: #"{"retention": null}"#) == "test.json: retention must be an integer")
    }

    @Test func theFileRefusesUnknownKeysAndSkipsComments() throws {
        #expect(configurationRefusal(file: #"{"retension": 5000}"#) == #"test.json: unknown setting "retension""#)
        #expect(try loadConfiguration(file: #"{"_comment": ["see", 1], "_note": {"a": null}, "port": 9000}"#).port == 9000)
    }

    @Test func aFileNamedButMissingIsRefusedAndTheDefaultFileIsOptional() {
        #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.load(file: "missing.json", environment: [:]) { _ in nil }
        }
        #expect(throws: Never.self) { try ServiceConfiguration.load(file: nil, environment: [:]) { _ in nil } }
    }

    @Test func optionalIntegersTakeNullAsTheirDefault() throws {
        let configuration = try loadConfiguration(file: #"{"maxConnectionsPerClient": null, "maxDocumentBytes": 65536}"#)
        #expect(configuration.maxConnectionsPerClient == nil)
        #expect(configuration.maxDocumentBytes == 65_536)
        #expect(configuration.httpServerConfiguration.connectionsPerClientInForce == 1_250)
        #expect(try loadConfiguration(environment: ["LISTDELTA_MAX_CONNECTIONS_PER_CLIENT": "0"]).maxConnectionsPerClient == 0)
    }

    @Test func eachLayerIsHandedItsOwnOptions() throws {
        let configuration = try loadConfiguration(file: #"{"maxViews": 7, "cursorSeconds": 30, "writeThreads": 3, "sourceFetches": 2}"#)
        #expect(configuration.applicationOptions.maximumViews == 7)
        #expect(configuration.applicationOptions.writeThreads == 3)
        #expect(configuration.applicationOptions.sources.concurrentFetches == 2)
        #expect(configuration.apiOptions.cursorSeconds == 30)
        #expect(configuration.httpServerConfiguration.port == 8080)
    }
}
