/// `PUT /v1/report`: start or stop recording the provider report.
struct ReportBody: ControlBody {
    var recording: Bool

    static let shape = BodyShape.fields(["recording"])
    static let example = #"{"recording":true}"#
}
