public import ListDeltaAccess
public import ListDeltaApplication
import ListDeltaEngine
public import ListDeltaService
public import ListDeltaStorage
public import Logging
public import Prometheus
import HTTPServer

extension ListDeltaService {
    /// The application over `store` and the routes over it, as `configuration` says, started (sources, views, and
    /// the other instances' announcements): what `ListDeltaApp` serves and what the in-process tests drive.
    /// - Parameters:
    ///   - store: opened by the caller (``ServiceConfiguration/openStore(logger:)``); closed by the application's
    ///     shutdown when shared.
    ///   - keys: the scoped tokens' keys, from ``ServiceConfiguration/verificationKeys()``; required when the
    ///     configuration names `jwtSecret` or `jwtPublicKeys`.
    /// - Throws: `ConfigurationError` for an invalid configuration or a store whose lists cannot be read.
    public static func composed(
        configuration: ServiceConfiguration, store: any RevisionStore & SourceStore & ViewStore, logger: Logger,
        registry: PrometheusCollectorRegistry?, keys: VerificationKeys = .none
    ) throws(ConfigurationError) -> ListDeltaService {
        do throws(ConfigurationError) {
            try configuration.validate()
            guard keys.isEmpty == !configuration.usesScopedTokens else {
                throw ConfigurationError("the JWT keys passed must be the configuration's: load them with verificationKeys()")
            }
        } catch {
            (store as? any SharedRevisionStore)?.close()
            throw error
        }
        let app: Application
        do {
            app = try Application(
                options: configuration.applicationOptions, store: store, logger: logger,
                loopCheck: EventLoopCheck { EventLoopThread.isCurrent })
        } catch {
            throw ConfigurationError("cannot read the lists of the store: \(error.detail)")
        }
        let service = ListDeltaService(app: app, options: configuration.apiOptions, registry: registry, keys: keys)
        app.start()
        return service
    }
}
