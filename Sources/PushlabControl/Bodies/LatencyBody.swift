import PushlabCore
import PushlabScenario

/// `PUT /v1/latency`: a shipped profile by name (`{"preset": "apple-like"}`), or a profile
/// spelled as a scenario's `policy.latency`.
struct LatencyBody: ControlBody {
    var preset: String?
    var file: LatencyFile

    private enum CodingKeys: String, CodingKey { case preset }

    init(from decoder: any Decoder) throws {
        preset = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .preset)
        file = try LatencyFile(from: decoder)
    }

    private static let distribution = BodyShape.fields(["distribution", "ms", "minMs", "maxMs", "p50Ms", "p99Ms"])
    static let shape = BodyShape.fields(
        ["preset", "development", "production", "both", "connectionStart", "internalServerErrorRate", "serviceUnavailableRate", "goAway", "seed"],
        [
            "development": distribution, "production": distribution, "both": distribution, "connectionStart": distribution,
            "goAway": .fields(["share", "after"], ["after": distribution]),
        ]
    )
    static let example = #"{"preset":"apple-like"} or {"both":{"distribution":"logNormal","p50Ms":35,"p99Ms":250}}"#

    func profile() throws(ControlError) -> LatencyProfile {
        if let preset {
            let spelled = [file.development, file.production, file.both, file.connectionStart].contains { $0 != nil }
                || file.internalServerErrorRate != nil || file.serviceUnavailableRate != nil || file.goAway != nil || file.seed != nil
            guard !spelled else { throw .invalid("Give a preset or a profile's fields, not both") }
            guard let profile = LatencyProfile.preset(named: preset) else {
                throw .invalid("Unknown preset \(preset): \(LatencyProfile.presets.map(\.name).joined(separator: " or "))")
            }
            return profile
        }
        if let problem = file.problem { throw .invalid(problem) }
        return file.profile
    }
}
