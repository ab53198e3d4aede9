import ListDeltaTestSupport
@testable import ListDeltaService

extension TestService {
    /// The service's shared state (its repository, hub and pools), for white-box checks.
    var context: ServiceContext { service.context }
}
