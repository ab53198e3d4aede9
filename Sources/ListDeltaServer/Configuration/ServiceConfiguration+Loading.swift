import ListDeltaCore
import TextFormats

extension ServiceConfiguration {
    /// One setting's names in the file (camelCase key), the environment (`LISTDELTA_` + upper snake, or for an
    /// `otel` key OpenTelemetry's own variable: `otelServiceName` is `OTEL_SERVICE_NAME`) and how to set it.
    private struct Setting: Sendable {
        let key: String
        let apply: @Sendable (inout ServiceConfiguration, JSONValue) throws(ConfigurationError) -> Void

        /// `LISTDELTA_` and the key in upper snake case; a run of capitals is one word (`databaseURL` is
        /// `LISTDELTA_DATABASE_URL`).
        var environmentName: String {
            var name = key.hasPrefix("otel") ? "" : "LISTDELTA_"
            let characters = Array(key)
            for (index, character) in characters.enumerated() {
                let previous = index > 0 ? characters[index - 1] : nil
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord = previous?.isLowercase == true || previous?.isNumber == true || (previous?.isUppercase == true && next?.isLowercase == true)
                if character.isUppercase, startsWord { name.append("_") }
                name.append(contentsOf: character.uppercased())
            }
            return name
        }
    }

    private static func int(_ key: String, _ path: any WritableKeyPath<ServiceConfiguration, Int> & Sendable) -> Setting {
        Setting(key: key) { configuration, value throws(ConfigurationError) in
            guard case .number(let number) = value, let int = number.intValue else { throw ConfigurationError("\(key) must be an integer") }
            configuration[keyPath: path] = int
        }
    }

    private static func optionalInt(_ key: String, _ path: any WritableKeyPath<ServiceConfiguration, Int?> & Sendable) -> Setting {
        Setting(key: key) { configuration, value throws(ConfigurationError) in
            switch value {
            case .null: configuration[keyPath: path] = nil
            case .number(let number) where number.intValue != nil: configuration[keyPath: path] = number.intValue
            default: throw ConfigurationError("\(key) must be an integer or null (the default)")
            }
        }
    }

    private static func double(_ key: String, _ path: any WritableKeyPath<ServiceConfiguration, Double> & Sendable) -> Setting {
        Setting(key: key) { configuration, value throws(ConfigurationError) in
            guard case .number(let number) = value else { throw ConfigurationError("\(key) must be a number") }
            configuration[keyPath: path] = number.value
        }
    }

    private static func string(_ key: String, _ path: any WritableKeyPath<ServiceConfiguration, String> & Sendable) -> Setting {
        Setting(key: key) { configuration, value throws(ConfigurationError) in
            guard case .string(let text) = value else { throw ConfigurationError("\(key) must be a string") }
            configuration[keyPath: path] = text
        }
    }

    private static func bool(_ key: String, _ path: any WritableKeyPath<ServiceConfiguration, Bool> & Sendable) -> Setting {
        Setting(key: key) { configuration, value throws(ConfigurationError) in
            guard case .bool(let flag) = value else { throw ConfigurationError("\(key) must be true or false") }
            configuration[keyPath: path] = flag
        }
    }

    private static func strings(_ key: String, _ path: any WritableKeyPath<ServiceConfiguration, [String]> & Sendable) -> Setting {
        Setting(key: key) { configuration, value throws(ConfigurationError) in
            guard case .array(let elements) = value else { throw ConfigurationError("\(key) must be an array of strings") }
            var result: [String] = []
            for element in elements {
                guard case .string(let text) = element else { throw ConfigurationError("\(key) must be an array of strings") }
                result.append(text)
            }
            configuration[keyPath: path] = result
        }
    }

    private static let settings: [Setting] = [
        string("host", \.host), int("port", \.port), string("dataDirectory", \.dataDirectory), int("retention", \.retention),
        int("maxWaitSeconds", \.maxWaitSeconds), int("cursorSeconds", \.cursorSeconds), int("maxListsPerRequest", \.maxListsPerRequest), double("heartbeatSeconds", \.heartbeatSeconds),
        double("drainSeconds", \.drainSeconds),
        strings("corsOrigins", \.corsOrigins), strings("writeTokens", \.writeTokens),
        bool("allowAnonymousWrites", \.allowAnonymousWrites), int("maxBodyBytes", \.maxBodyBytes),
        int("maxConnections", \.maxConnections), int("timeoutSeconds", \.timeoutSeconds),
        int("requestTimeoutSeconds", \.requestTimeoutSeconds), int("eventLoops", \.eventLoops),
        int("workerThreads", \.workerThreads), int("writeThreads", \.writeThreads),
        int("maxQueuedRequests", \.maxQueuedRequests), int("cachedLists", \.cachedLists), int("cacheBytes", \.cacheBytes), int("maxSections", \.maxSections), int("maxItems", \.maxItems),
        int("maxDepth", \.maxDepth), bool("durableSync", \.durableSync), string("logLevel", \.logLevel), string("webRoot", \.webRoot),
        string("responseHead", \.responseHead), string("jwtSecret", \.jwtSecret), string("jwtPublicKeys", \.jwtPublicKeys),
        string("readAccess", \.readAccess), string("databaseURL", \.databaseURL), string("databasePassword", \.databasePassword),
        int("databaseConnections", \.databaseConnections), double("databaseTimeoutSeconds", \.databaseTimeoutSeconds),
        strings("sourceHosts", \.sourceHosts), string("sourceDirectory", \.sourceDirectory), int("sourceMinInterval", \.sourceMinInterval),
        int("maxSources", \.maxSources), int("sourceMaxItems", \.sourceMaxItems), int("sourceMaxBytes", \.sourceMaxBytes),
        double("sourceTimeoutSeconds", \.sourceTimeoutSeconds), int("sourceFetches", \.sourceFetches),
        int("maxViews", \.maxViews), double("viewSweepSeconds", \.viewSweepSeconds), int("maxQueries", \.maxQueries),
        int("idempotencySeconds", \.idempotencySeconds),
        optionalInt("maxConnectionsPerClient", \.maxConnectionsPerClient), int("headerTimeoutSeconds", \.headerTimeoutSeconds),
        int("maxOutputBytes", \.maxOutputBytes), optionalInt("maxDocumentBytes", \.maxDocumentBytes),
        int("maxPatchOperations", \.maxPatchOperations), int("maxConditions", \.maxConditions), int("maxSortKeys", \.maxSortKeys), int("maxInValues", \.maxInValues),
        int("maxValueBytes", \.maxValueBytes), int("maxDefinitionBytes", \.maxDefinitionBytes),
        int("maxTokenLifetimeSeconds", \.maxTokenLifetimeSeconds), string("logFormat", \.logFormat),
        string("otelExporterOtlpEndpoint", \.tracing.endpoint), string("otelExporterOtlpTracesEndpoint", \.tracing.tracesEndpoint),
        string("otelExporterOtlpHeaders", \.tracing.headers),
        string("otelExporterOtlpTracesHeaders", \.tracing.tracesHeaders), string("otelServiceName", \.tracing.serviceName),
        string("otelResourceAttributes", \.tracing.resourceAttributes), string("otelTracesSampler", \.tracing.sampler),
        string("otelTracesSamplerArg", \.tracing.samplerArgument), bool("otelSdkDisabled", \.tracing.disabled),
    ]

    /// The environment variable names this configuration reads, in the file's order.
    public static var environmentNames: [String] { settings.map(\.environmentName) }

    /// Applies the members of a configuration file (a JSON object with the property names as keys).
    /// - Throws: `ConfigurationError` for malformed JSON, an unknown key or a value of the wrong type.
    public mutating func apply(fileContents bytes: [UInt8], name: String) throws(ConfigurationError) {
        let value: JSONValue
        do {
            value = try JSONReader().read(bytes)
        } catch {
            throw ConfigurationError("\(name): \(error)")
        }
        guard case .object(let object) = value else { throw ConfigurationError("\(name): must be a JSON object") }
        for (key, member) in object.entries {
            if key.hasPrefix("_") { continue }  // comments
            guard let setting = Self.settings.first(where: { $0.key == key }) else {
                throw ConfigurationError("\(name): unknown setting \"\(key)\"")
            }
            do {
                try setting.apply(&self, member)
            } catch {
                throw ConfigurationError("\(name): \(error.message)")
            }
        }
    }

    /// Applies `LISTDELTA_*` variables: numbers and booleans as written, lists comma-separated.
    /// - Throws: `ConfigurationError` for a value that does not parse.
    public mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        for setting in Self.settings {
            guard let text = environment[setting.environmentName] else { continue }
            // Try the text as a number or boolean, then as a string, then as a comma-separated list.
            var candidates: [JSONValue] = []
            if let number = try? JSONReader().read(text), case .number = number { candidates.append(number) }
            if ["true", "false"].contains(text.lowercased()) { candidates.append(.bool(text.lowercased() == "true")) }
            candidates.append(.string(text))
            candidates.append(.array(text.split(separator: ",").map { .string(String($0.trimmingSpaces())) }.filter { $0 != .string("") }))
            var lastError = ConfigurationError("no value")
            var applied = false
            for candidate in candidates where !applied {
                do {
                    try setting.apply(&self, candidate)
                    applied = true
                } catch {
                    lastError = error
                }
            }
            if !applied { throw ConfigurationError("\(setting.environmentName): \(lastError.message)") }
        }
    }
}

