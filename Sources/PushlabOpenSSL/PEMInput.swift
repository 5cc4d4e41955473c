import COpenSSL

/// PEM text handed to an OpenSSL `PEM_read_bio_*` function through a read-only memory BIO that
/// lives only for the call.
enum PEMInput {
    /// The object `read` makes from `pem`, owned by the caller; throws naming `what` when
    /// OpenSSL finds none.
    static func read(_ pem: String, what: String, _ read: (OpaquePointer) -> OpaquePointer?) throws(OpenSSLError) -> OpaquePointer {
        // A memory BIO reads the caller's bytes in place, without a copy: it must be used and
        // freed while they are pinned. (Made outside the closure, it read an array Swift had
        // already freed, and one load in ten failed.)
        let bytes = Array(pem.utf8)
        let object = bytes.withUnsafeBytes { buffer -> Result<OpaquePointer, OpenSSLError> in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return .failure(OpenSSLError("BIO_new_mem_buf")) }
            defer { BIO_free(bio) }
            guard let object = read(bio) else { return .failure(OpenSSLError(what)) }
            return .success(object)
        }
        return try object.get()
    }
}
