/// The request header names APNs reads. The transport hands the core these very strings for
/// the headers it recognises, so matching a name is a pointer comparison, not a `memcmp`.
public enum APNsHeaderName {
    public static let topic = "apns-topic"
    public static let pushType = "apns-push-type"
    public static let priority = "apns-priority"
    public static let apnsID = "apns-id"
    public static let expiration = "apns-expiration"
    public static let collapseID = "apns-collapse-id"
    public static let authorization = "authorization"
}
