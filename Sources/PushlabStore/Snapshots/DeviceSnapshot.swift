import PushlabSimulator

/// A device's whole state, Notification Centers included, written as the store writes its
/// snapshots: JSON field by field (`StreamingJSONEncoder`), without what decoding restores unasked
/// (`omitsDefaults`), read back with `JSONDecoder`. For another keeper of phones' states: a
/// cluster's engine.
public enum DeviceSnapshot {
    public static func encode(_ device: SimulatedDevice) throws -> [UInt8] {
        try StreamingJSONEncoder.encode(device)
    }
}
