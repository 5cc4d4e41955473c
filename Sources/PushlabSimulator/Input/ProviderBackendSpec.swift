import PushlabCore

/// `provider:` of an app: its backend's base URL and the request it makes per event.
public struct ProviderBackendSpec: Decodable, Sendable {
    public var baseURL: String
    public var requests: [RequestSpec]

    public struct RequestSpec: Decodable, Sendable {
        /// `registered`, `backgroundFetch`, `notificationResponse`, `launch` or `sdkRegistered`.
        public var event: String
        /// `POST` (default), `GET`, `PUT`, `PATCH` or `DELETE`.
        public var method: String?
        public var path: String
        public var headers: [String: String]?
        public var body: FreeJSON?
        public var timeoutSeconds: Double?
    }

    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    func backend(place: String) throws(SimulatorError) -> ProviderBackend {
        let scheme = baseURL.prefix { $0 != ":" }.lowercased()
        let isHTTP = (scheme == "http" || scheme == "https") && baseURL.dropFirst(scheme.count).hasPrefix("://") && baseURL.count > scheme.count + 3
        guard isHTTP || baseURL == ProviderBackend.standInBaseURL else {
            throw SimulatorError(.invalid, "\(place).baseURL must be an http:// or https:// URL, or \(ProviderBackend.standInBaseURL), not \(baseURL)")
        }
        var templates: [ProviderRequestTemplate] = []
        for (index, request) in requests.enumerated() {
            let here = "\(place).requests[\(index)]"
            let event = try parse(request.event, as: ProviderEvent.self, "\(here).event")
            if templates.contains(where: { $0.event == event }) { throw SimulatorError(.invalid, "\(here): \(event.rawValue) is given twice") }
            let method = (request.method ?? "POST").uppercased()
            guard Self.methods.contains(method) else { throw SimulatorError(.invalid, "\(here).method must be one of GET, POST, PUT, PATCH, DELETE, not \(request.method ?? "")") }
            if let timeout = request.timeoutSeconds, !(timeout > 0 && timeout <= 3600) {
                throw SimulatorError(.invalid, "\(here).timeoutSeconds must be more than 0 and at most 3600")
            }
            if method == "GET" || method == "DELETE", request.body != nil { throw SimulatorError(.invalid, "\(here): a \(method) request has no body") }
            templates.append(ProviderRequestTemplate(
                event: event, method: method, path: request.path,
                headers: (request.headers ?? [:]).sorted { $0.key < $1.key }.map { ProviderHeader($0.key, $0.value) },
                body: request.body?.value, timeoutSeconds: request.timeoutSeconds ?? 60
            ))
        }
        return ProviderBackend(baseURL: baseURL, requests: templates)
    }
}
