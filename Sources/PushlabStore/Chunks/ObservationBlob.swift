import PushlabSimulator

/// Observations in the store's chunk format (`ObservationChunk`), for another keeper of a
/// history: a cluster's engine holds its partitions' observations in these. One format means one
/// encoder to keep fast and one to keep readable across versions.
public enum ObservationBlob {
    /// The observations, in order, as one blob.
    public static func encode(_ observations: [Observation]) -> [UInt8] {
        var contents = ContentTexts()
        return ObservationChunk.encode(BatchItems([observations]), in: 0..<observations.count, contents: &contents)
    }

    /// The observations of a blob `encode` made; damaged or foreign bytes are a readable error.
    public static func decode(_ bytes: [UInt8]) throws(StoreError) -> [Observation] {
        let stored: [StoredObservation]
        do {
            stored = try bytes.withUnsafeBytes { try ObservationChunk.decode($0) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unreadable, "a chunk of saved observations cannot be read: \(error)")
        }
        var observations: [Observation] = []
        observations.reserveCapacity(stored.count)
        for observation in stored { observations.append(try observation.observation()) }
        return observations
    }
}
