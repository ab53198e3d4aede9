import ListDeltaPostgres
import ListDeltaStorage
import Testing

/// Reading `postgres://` URLs: what is taken from where, and what is refused (without the password in the error).
@Suite struct PostgresConfigurationTests {
    @Test func readsEveryPartAndDecodesThem() throws {
        let configuration = try PostgresStoreConfiguration(url: "postgresql://list%40delta:p%3Ass@db.example:6432/lists%2Dprod?sslmode=require")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6432)
        #expect(configuration.username == "list@delta")
        #expect(configuration.password == "p:ss")
        #expect(configuration.database == "lists-prod")
        #expect(configuration.tls == .require)
        #expect(configuration.redacted == "postgres://list@delta@db.example:6432/lists-prod")
    }

    @Test func thePasswordSettingWinsAndDefaultsApply() throws {
        let configuration = try PostgresStoreConfiguration(url: "postgres://app@localhost/lists", password: "from-env")
        #expect(configuration.password == "from-env")
        #expect(configuration.port == 5432)
        #expect(configuration.tls == .prefer)
    }

    @Test(arguments: [
        "mysql://u:p@h/db", "postgres://u:p@/db", "postgres://h/db", "postgres://u:p@h", "postgres://u:p@h/",
        "postgres://u:p@h/db?sslmode=maybe", "not a url",
    ])
    func refusesWhatCannotWork(_ url: String) {
        #expect(throws: StoreError.self) { try PostgresStoreConfiguration(url: url) }
        do {
            _ = try PostgresStoreConfiguration(url: url)
        } catch {
            #expect(!"\(error)".contains(":p@"))
        }
    }
}
