import ListDeltaPostgres
@testable import ListDeltaServer
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsAreTheDocumentedOnes() throws {
        let configuration = ServiceConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.dataDirectory == "./data")
        #expect(configuration.retention == 1000)
        try configuration.validate()
    }

    @Test func fileThenEnvironmentOverride() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(fileContents: Array(#"{"port": 9000, "retention": 5, "corsOrigins": ["https://a.example"], "_note": "x"}"#.utf8), name: "test")
        #expect(configuration.port == 9000)
        #expect(configuration.corsOrigins == ["https://a.example"])
        try configuration.apply(environment: [
            "LISTDELTA_PORT": "9001", "LISTDELTA_WRITE_TOKENS": "alpha, beta", "LISTDELTA_MAX_BODY_BYTES": "65536",
            "LISTDELTA_DURABLE_SYNC": "false", "LISTDELTA_HOST": "127.0.0.2",
        ])
        #expect(configuration.port == 9001)
        #expect(configuration.retention == 5)
        #expect(configuration.writeTokens == ["alpha", "beta"])
        #expect(configuration.maxBodyBytes == 65536)
        #expect(configuration.durableSync == false)
        #expect(configuration.host == "127.0.0.2")
    }

    @Test func theDatabaseSettingsComeFromTheirDocumentedVariables() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(environment: [
            "LISTDELTA_DATABASE_URL": "postgres://app@db.example:6432/lists", "LISTDELTA_DATABASE_PASSWORD": "s3cret",
            "LISTDELTA_DATABASE_CONNECTIONS": "12", "LISTDELTA_DATABASE_TIMEOUT_SECONDS": "2.5",
        ])
        #expect(ServiceConfiguration.environmentNames.contains("LISTDELTA_JWT_PUBLIC_KEYS"))
        #expect(configuration.usesPostgres)
        let postgres = try configuration.postgresConfiguration()
        #expect(postgres.password == "s3cret")
        #expect(postgres.port == 6432)
        #expect(postgres.maximumConnections == 12)
        #expect(postgres.timeoutSeconds == 2.5)
        #expect(!configuration.storeDescription.contains("s3cret"))
        try configuration.validate()
        try configuration.validateStore()
        configuration.databaseURL = "postgres://no-database@db.example"
        let refused = #expect(throws: ConfigurationError.self) { try configuration.validateStore() }
        #expect(refused?.message.hasPrefix("databaseURL: ") == true && refused?.message.contains("names no database") == true)
    }

    @Test func aNumericTokenStaysAString() throws {
        var configuration = ServiceConfiguration()
        try configuration.apply(environment: ["LISTDELTA_WRITE_TOKENS": "12345"])
        #expect(configuration.writeTokens == ["12345"])
    }

    @Test func badSettingsAreRefused() {
        var configuration = ServiceConfiguration()
        #expect(throws: ConfigurationError.self) { try configuration.apply(fileContents: Array(#"{"prot": 1}"#.utf8), name: "t") }
        #expect(throws: ConfigurationError.self) { try configuration.apply(fileContents: Array(#"{"port": "x"}"#.utf8), name: "t") }
        #expect(throws: ConfigurationError.self) { try configuration.apply(environment: ["LISTDELTA_PORT": "eighty"]) }
        configuration.port = 70_000
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }

    @Test func cursorSecondsIsReadFromTheFileAndTheEnvironmentAndBounded() throws {
        var configuration = ServiceConfiguration()
        #expect(configuration.cursorSeconds == 20)
        try configuration.apply(fileContents: Array(#"{"cursorSeconds": 5}"#.utf8), name: "t")
        #expect(configuration.cursorSeconds == 5)
        try configuration.apply(environment: ["LISTDELTA_CURSOR_SECONDS": "2"])
        #expect(configuration.cursorSeconds == 2)
        try configuration.validate()
        for bad in [0, -1, 3_601] {
            configuration.cursorSeconds = bad
            #expect(throws: ConfigurationError.self) { try configuration.validate() }
        }
        #expect(throws: ConfigurationError.self) { try configuration.apply(fileContents: Array(#"{"cursorSeconds": 1.5}"#.utf8), name: "t") }
    }

    @Test func anonymousWritesBeyondLoopbackNeedConsent() throws {
        var configuration = ServiceConfiguration()
        configuration.host = "0.0.0.0"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.writeTokens = ["secret"]
        try configuration.validate()
        configuration.writeTokens = []
        configuration.allowAnonymousWrites = true
        try configuration.validate()
    }
}
