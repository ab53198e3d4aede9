import ListDeltaServer
import Logging

extension ServiceConfiguration {
    /// What the tests run the service with: data in `directory`, commits without fsync, waits of at most 10 s,
    /// cursor intervals of an hour (a poll without `cursor` is held to the end of its interval at most: at the default
    /// 20 s, a poll sent near an interval's end would be cut short), then `configure`'s changes.
    static func testing(in directory: String, _ configure: (inout ServiceConfiguration) -> Void) -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.dataDirectory = directory
        configuration.durableSync = false
        configuration.maxWaitSeconds = 10
        configuration.cursorSeconds = 3_600
        configure(&configuration)
        return configuration
    }
}

extension Logger {
    /// A logger that says only what is critical.
    static func quiet(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }
}
