/// The eleven `apns-push-type` values, and the topic suffix each needs (reference 1.3).
public enum APNsPushType: String, Sendable, CaseIterable, Codable {
    case alert, background, complication, controls, fileprovider, liveactivity, location, mdm, pushtotalk, voip, widgets

    /// The suffix `apns-topic` must carry for this type; nil where the bare bundle id is the topic.
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: nil
        case .complication: ".complication"
        case .controls: ".push-type.controls"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .voip: ".voip"
        case .widgets: ".push-type.widgets"
        }
    }

    /// VoIP payloads may be 5120 bytes; everything else 4096 (reference 3.1).
    public var maximumPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// Suffixes, longest first, so `.voip-ptt` is not read as `.voip`.
    static let suffixed: [APNsPushType] = allCases.filter { $0.topicSuffix != nil }
        .sorted { $0.topicSuffix!.count > $1.topicSuffix!.count }
}

/// An `apns-topic` split into the bundle id and the push type its suffix names.
public struct APNsTopic: Sendable, Equatable {
    public var value: String
    public var bundleID: String
    /// The push type the suffix stands for; nil for a bare bundle id.
    public var suffixType: APNsPushType?

    public init(_ value: String) {
        self.value = value
        for type in APNsPushType.suffixed {
            if let suffix = type.topicSuffix, value.hasSuffix(suffix), value.count > suffix.count {
                bundleID = String(value.dropLast(suffix.count))
                suffixType = type
                return
            }
        }
        bundleID = value
        suffixType = nil
    }
}
