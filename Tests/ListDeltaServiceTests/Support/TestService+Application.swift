import ListDeltaApplication
import ListDeltaTestSupport
@testable import ListDeltaService

extension TestService {
    /// The service's application (its repository, hub and pools), for white-box checks.
    var app: Application { service.app }
}
