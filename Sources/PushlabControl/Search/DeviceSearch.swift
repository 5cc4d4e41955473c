import PushlabSimulator

/// `GET /v1/devices?search=`: the devices whose id, name or an app's bundle id contains the
/// text (ignoring case), or that hold a token starting with it. How a person finds one phone
/// among 100,000: by what it is called, or by the token a log line shows.
struct DeviceSearch: Sendable {
    /// Lower-cased, as ids, names and bundle ids are compared; tokens are lower-case hex.
    let text: String
    /// Only hex can start a token: other text skips listing every device's tokens.
    private let couldBeToken: Bool

    /// Counted in Unicode scalars, as JSON Schema's `maxLength` in the OpenAPI document counts.
    static let maximumLength = 256

    init(_ text: String) throws(ControlError) {
        let length = text.unicodeScalars.count
        guard length <= Self.maximumLength else { throw .invalid("search is at most \(Self.maximumLength) characters, not \(length)") }
        self.text = text.lowercased()
        couldBeToken = text.allSatisfy(\.isHexDigit)
    }

    func matches(_ device: SimulatedDevice) -> Bool {
        device.id.lowercased().contains(text) || device.name.lowercased().contains(text)
            || device.apps.contains { $0.bundleID.lowercased().contains(text) }
            || (couldBeToken && device.tokenRecords.contains { $0.token.hasPrefix(text) })
    }
}
