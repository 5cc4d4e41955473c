import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import PushlabCore
import PushlabSimulator
import Synchronization

/// Sends the requests simulated apps make to their providers' backends over real HTTP (1.1 or
/// 2, as the server offers), each in its own task so that a slow or dead backend holds up
/// nothing but its own request, and hands what came of it back to the simulator.
public final class ProviderHTTPClient: ProviderRequestSender {
    private let client: HTTPClient
    private let simulator: DeviceSimulator
    /// Where `pushlab:stand-in` points: the control API's `/stand-in` (set once it listens).
    private let standInURL = Mutex<String?>(nil)

    /// The base URL an app gives to reach Pushlab's stand-in backend.
    public static let standInScheme = ProviderBackend.standInBaseURL

    public func setStandInURL(_ url: String?) {
        standInURL.withLock { $0 = url }
    }
    /// The most of an answer's body read, and shown in the observation.
    static let bodyLimit = 64 * 1024
    static let excerptLength = 200

    public init(simulator: DeviceSimulator) {
        self.simulator = simulator
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        // A backend that refuses the connection fails the request at once, as URLSession does
        // (NSURLErrorCannotConnectToHost); retried, it failed only at the 10 s connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func send(_ requests: [ProviderRequest]) {
        for request in requests {
            Task { [self] in
                let response = await perform(request)
                simulator.recordProviderResponse(response, for: request)
            }
        }
    }

    func perform(_ request: ProviderRequest) async -> ProviderResponse {
        let started = ContinuousClock.now
        func elapsed() -> Int64 {
            let duration = ContinuousClock.now - started
            return duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }
        func answer(status: Int? = nil, excerpt: String? = nil, failure: ProviderResponse.Failure? = nil, message: String? = nil) -> ProviderResponse {
            ProviderResponse(
                event: request.event, method: request.method, url: request.url, status: status, milliseconds: elapsed(), excerpt: excerpt,
                failure: failure, message: message
            )
        }
        var url = request.url
        if url.hasPrefix(Self.standInScheme) {
            guard let base = standInURL.withLock({ $0 }) else {
                return answer(failure: .refused, message: "pushlab:stand-in needs the control API, which is not running")
            }
            url = base + url.dropFirst(Self.standInScheme.count)
        }
        var http = HTTPClientRequest(url: url)
        http.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { http.headers.add(name: header.name, value: header.value) }
        if let body = request.body {
            if !http.headers.contains(name: "content-type") { http.headers.add(name: "content-type", value: "application/json") }
            http.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await client.execute(http, timeout: .milliseconds(request.timeLimitMilliseconds))
            // The start of the body is all an excerpt needs; the rest is read and dropped.
            var body = ByteBuffer()
            for try await chunk in response.body where body.readableBytes < Self.bodyLimit {
                body.writeImmutableBuffer(chunk)
            }
            let text = String(String(buffer: body).prefix(Self.excerptLength)).trimmingTrailingWhitespace
            return answer(status: Int(response.status.code), excerpt: text.isEmpty ? nil : text)
        } catch {
            return answer(failure: Self.failure(of: error, request), message: Self.describe(error, request))
        }
    }

    static func failure(of error: any Error, _ request: ProviderRequest) -> ProviderResponse.Failure {
        if let client = error as? HTTPClientError, client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout {
            return request.limitedByBackgroundTime ? .cutOff : .timedOut
        }
        let text = String(describing: error).lowercased()
        if text.contains("refused") || text.contains("unreachable") || text.contains("lookup") || text.contains("dns") { return .refused }
        return .failed
    }

    static func describe(_ error: any Error, _ request: ProviderRequest) -> String {
        switch failure(of: error, request) {
        case .cutOff: "iOS suspended the app after \(request.timeLimitMilliseconds / 1000) s of background time; the request never finished"
        case .timedOut: "No answer within \(request.timeLimitMilliseconds / 1000) s"
        case .refused: "The backend could not be reached: \(error)"
        case .failed: "The request failed: \(error)"
        }
    }

    /// Stops the client; requests still running end as failed.
    public func shutdown() async {
        try? await client.shutdown()
    }
}

extension String {
    /// Without the newline most JSON servers end a body with.
    var trimmingTrailingWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" || last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
