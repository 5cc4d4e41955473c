// The push and the answer are plain values of the core (scenario scripts use them too); a
// client's users get them with `import PushlabClient`.
@_exported import struct PushlabCore.APNsAnswer
@_exported import struct PushlabCore.APNsNotification
