import COpenSSL

/// Reads everything a memory BIO holds (PEM and text output of OpenSSL's printers).
enum MemoryBIO {
    static func drain(_ bio: OpaquePointer) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 512)
        while true {
            let read = BIO_read(bio, &chunk, Int32(chunk.count))
            if read <= 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(read)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
