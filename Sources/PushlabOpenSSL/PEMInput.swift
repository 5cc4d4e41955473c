import COpenSSL

/// PEM text handed to an OpenSSL `PEM_read_bio_*` function through a read-only memory BIO that
/// lives only for the call.
enum PEMInput {
    /// The object `read` makes from `pem`, owned by the caller; throws naming `what` when
    /// OpenSSL finds none.
    static func read(_ pem: String, what: String, _ read: (OpaquePointer) -> OpaquePointer?) throws(OpenSSLError) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let bio = bytes.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        guard let bio else { throw OpenSSLError("BIO_new_mem_buf") }
        defer { BIO_free(bio) }
        guard let object = read(bio) else { throw OpenSSLError(what) }
        return object
    }
}
