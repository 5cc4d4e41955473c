import PushlabCore

/// The log's encoding of accepted pushes (`AcceptedPushChunk`), for a log kept elsewhere: a
/// cluster's engine keeps each push as one entry of its partition's stream.
public enum AcceptedPushEncoding {
    public static func encode(_ pushes: [AcceptedPush]) -> [UInt8] {
        pushes.withUnsafeBufferPointer(AcceptedPushChunk.encode)
    }

    public static func decode(_ bytes: [UInt8]) throws(StoreError) -> [AcceptedPush] {
        do {
            return try bytes.withUnsafeBytes { buffer in try AcceptedPushChunk.decode(buffer) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unreadable, "pushes that cannot be read: \(error)")
        }
    }
}
