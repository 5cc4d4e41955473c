import GRDB
import GRDBSQLite

/// Binds a row's values straight into a prepared SQLite statement and steps it. GRDB's
/// `StatementArguments` boxes every value in an existential; at tens of thousands of rows a
/// second that boxing was a large part of the writer's time.
struct RowInserter: ~Copyable {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private var index: Int32 = 0

    /// SQLite copies the text before the bind returns (`SQLITE_TRANSIENT`, a macro Swift cannot import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: Statement, in db: Database) {
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
    }

    mutating func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(handle, index, value)
    }

    mutating func bind(_ value: Int) { bind(Int64(value)) }

    mutating func bind(_ text: String?) {
        index += 1
        guard var text else {
            sqlite3_bind_null(handle, index)
            return
        }
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                return
            }
            _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
        }
    }

    /// UTF-8 bytes bound as text.
    mutating func bind(text bytes: [UInt8]) {
        index += 1
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            _ = sqlite3_bind_text(handle, index, base, Int32(buffer.count), Self.transient)
        }
    }

    /// Little-endian 8-byte integers, one after the other, as one blob.
    mutating func bind(integers: [Int64]) {
        #if _endian(little)
        integers.withUnsafeBytes { bind(blob: $0) }
        #else
        integers.map(\.littleEndian).withUnsafeBytes { bind(blob: $0) }
        #endif
    }

    /// (key, sequence) pairs, as the batch index stores them: two little-endian integers each.
    mutating func bind(pairs: UnsafeRawBufferPointer) {
        #if _endian(little)
        bind(blob: pairs)
        #else
        bind(integers: Array(pairs.bindMemory(to: Int64.self)))
        #endif
    }

    mutating func bind(blob: [UInt8]) {
        blob.withUnsafeBytes { bind(blob: $0) }
    }

    /// SQLite reads a null pointer as NULL, even for zero bytes: an empty blob needs an address.
    private mutating func bind(blob bytes: UnsafeRawBufferPointer) {
        index += 1
        _ = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), Self.transient)
    }

    /// Runs the statement with the values bound so far, then readies it for the next row.
    mutating func step() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        index = 0
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) })
        }
    }
}
