/// Why the store could not open, write or read, in words a person can act on.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened or migrated: a missing folder, no permission, not SQLite.
        case cannotOpen
        /// A batch could not be committed; it stays buffered and is tried again.
        case cannotWrite
        /// A saved row could not be read back (a device's JSON, an observation's details).
        case unreadable
        /// `flush()` after `close()`.
        case closed
        /// A setting the store cannot work with (a history limit under 1).
        case invalidSetting
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    static func cannotOpen(_ path: String, _ underlying: any Error) -> StoreError {
        StoreError(.cannotOpen, "Cannot open store \(path): \(underlying)")
    }

    static func cannotWrite(_ path: String, _ underlying: any Error) -> StoreError {
        StoreError(.cannotWrite, "Cannot write to store \(path): \(underlying)")
    }

    /// SQLite's failures and a damaged row's alike: the rows describe themselves, this names the file.
    static func cannotRead(_ path: String, _ underlying: any Error) -> StoreError {
        StoreError(.unreadable, "Cannot read store \(path): \(underlying)")
    }
}
