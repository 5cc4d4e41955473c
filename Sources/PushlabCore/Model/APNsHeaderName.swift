/// The request header names APNs reads, for code that builds or prints requests. (The rules
/// recognise them in a request's bytes as they arrive: `RequestFields`.)
public enum APNsHeaderName {
    public static let topic = "apns-topic"
    public static let pushType = "apns-push-type"
    public static let priority = "apns-priority"
    public static let apnsID = "apns-id"
    public static let expiration = "apns-expiration"
    public static let collapseID = "apns-collapse-id"
    public static let authorization = "authorization"
}
