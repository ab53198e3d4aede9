public import HTTPServer
public import ListDeltaAccess
public import ListDeltaApplication
public import Prometheus

/// API v1 without a socket: the routes over an ``Application``, with the access rules and the contract's options.
///
/// `ListDeltaApp` (in `ListDeltaServer`) puts it behind the HTTP server; tests hand requests to ``router`` with an
/// in-memory `HTTPResponding` and so exercise every route, the pools and the races between them in-process.
public final class ListDeltaService: Sendable {
    /// The application the routes call.
    public let app: Application
    /// The contract's numbers and bounds it runs with.
    public let options: APIOptions
    /// Every route of the API, the page and the operational endpoints.
    public let router: Router
    let context: RouteContext

    /// Builds the routes over `app`.
    /// - Parameters:
    ///   - registry: where `/metrics` reads from; `nil` when the process bootstrapped no Prometheus factory.
    ///   - keys: the scoped tokens' keys (``VerificationKeys/none`` when none are configured).
    public init(app: Application, options: APIOptions, registry: PrometheusCollectorRegistry?, keys: VerificationKeys = .none) {
        self.app = app
        self.options = options
        let context = RouteContext(app: app, options: options, access: AccessControl(options: options, keys: keys))
        self.context = context
        var router = Router()
        ReadRoutes(context: context).register(in: &router)
        WriteRoutes(context: context).register(in: &router)
        DiffRoutes(context: context).register(in: &router)
        HistoryRoutes(context: context).register(in: &router)
        EventRoutes(context: context).register(in: &router)
        ManyListsRoutes(context: context).register(in: &router)
        SourceRoutes(context: context).register(in: &router)
        ViewRoutes(context: context).register(in: &router)
        OperationalRoutes(context: context, registry: registry).register(in: &router)
        StaticRoutes(webRoot: options.webRoot).register(in: &router)
        self.router = router
    }
}
