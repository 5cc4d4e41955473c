import PushlabCore

extension AppInstall {
    /// Every token APNs knows for this install: its device token, its push-to-start token, each
    /// activity's own token and each push service's.
    public var allTokens: [String] {
        var tokens = [deviceToken]
        if let support = liveActivities {
            if let token = support.pushToStartToken { tokens.append(token) }
            tokens += support.activities.compactMap(\.pushToken)
        }
        tokens += (services?.tokens ?? []).map(\.token)
        return tokens
    }

    func tokenRecords(deviceID: String) -> [DeviceTokenRecord] {
        var records = [DeviceTokenRecord(token: deviceToken, bundleID: bundleID, environment: environment, deviceID: deviceID)]
        if let support = liveActivities {
            if let token = support.pushToStartToken {
                records.append(DeviceTokenRecord(token: token, bundleID: bundleID, environment: environment, kind: .pushToStart, deviceID: deviceID))
            }
            for token in support.activities.compactMap(\.pushToken) {
                records.append(DeviceTokenRecord(token: token, bundleID: bundleID, environment: environment, kind: .liveActivity, deviceID: deviceID))
            }
        }
        for (kind, token) in services?.tokens ?? [] {
            records.append(DeviceTokenRecord(token: token, bundleID: bundleID, environment: environment, kind: kind, deviceID: deviceID))
        }
        return records
    }
}
