import PushlabSimulator

/// A device's state written as the store writes its rows: JSON field by field
/// (`StreamingJSONEncoder`), without what decoding restores unasked (`omitsDefaults`) and
/// without its Notification Center entries, which are kept apart, an entry at a time, read
/// back with `JSONDecoder`. For another keeper of phones' states: a cluster's engine.
public enum DeviceSnapshot {
    public static func encode(_ device: SimulatedDevice) throws -> [UInt8] {
        var device = device
        for app in device.apps.indices { device.apps[app].notificationCenter = [] }
        return try StreamingJSONEncoder.encode(device)
    }
}
