import PushlabCore

/// Any request, however malformed, gets an answer APNs gives: a status of Apple's table (or a
/// stream reset), never a crash. Bytes split at NUL: the path, then header names and values in
/// turn; what is left after a second NUL NUL is the body.
private struct AcceptsAll: SignatureVerifier {
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool { signature.first == 1 }
}

private let service: APNsProviderService = {
    let world = APNsWorld(
        keys: [SigningKey(keyID: "KEY0000001", teamID: "TEAM000001", verifier: AcceptsAll())],
        apps: [AppRecord(bundleID: "com.example.app", teamID: "TEAM000001")],
        tokens: [DeviceTokenRecord(token: String(repeating: "ab", count: 32), bundleID: "com.example.app", environment: .development)]
    )
    return APNsProviderService(world: world, clock: ManualClock())
}()

private let statuses = Set(APNsErrorReason.allCases.map(\.status) + [200, 201, 204])

func fuzzRequest(_ bytes: UnsafeRawBufferPointer) {
    let data = Array(bytes)
    let (head, body): ([UInt8], [UInt8]) = {
        for index in data.indices.dropLast() where data[index] == 0 && data[index + 1] == 0 {
            return (Array(data[..<index]), Array(data[(index + 2)...]))
        }
        return (data, [])
    }()
    let parts = head.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    var headers: [(name: String, value: String)] = []
    var index = 1
    while index + 1 < parts.count {
        headers.append((parts[index].lowercased(), parts[index + 1]))
        index += 2
    }
    let connection = service.makeConnectionHandler(for: ConnectionInfo(id: 1, listenerEnvironment: .development))
    let outcome = connection.handle(APNsRequest(path: parts.first, headers: headers, body: body))
    connection.flushRecords()
    if let response = outcome.response, !statuses.contains(response.status) {
        fatalError("status \(response.status) is not in Apple's table")
    }
}
