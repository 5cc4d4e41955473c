import PushlabCore
import PushlabSimulator

extension ProviderBackend {
    /// As a `ProviderBackendSpec` writes it, so the JSON can be posted back.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("baseURL", baseURL)
        fields.add("requests", JSONValue.array(requests.map { request in
            var fields = JSONFields()
            fields.add("event", request.event.rawValue)
            fields.add("method", request.method)
            fields.add("path", request.path)
            if !request.headers.isEmpty { fields.add("headers", JSONValue.object(request.headers.map { ($0.name, .string($0.value)) })) }
            fields.add("body", request.body)
            fields.add("timeoutSeconds", request.timeoutSeconds)
            return fields.json
        }))
        return fields.json
    }
}
