import Foundation
import PushlabClient
import PushlabCore
import Testing

@Suite("APNsClientRequest as a curl command")
struct CurlCommandTests {
    @Test func everyHeaderAndTheBodyAsSent() {
        let push = APNsNotification(
            deviceToken: "abcd", payload: Array(#"{"aps":{"alert":"it's here"}}"#.utf8), topic: "com.example.app", pushType: "alert",
            priority: 5, providerToken: "eyJ.x.y"
        ).request
        #expect(push.curlCommand(baseURL: "https://127.0.0.1:2197") == """
            curl -sS -i --http2 \\
              --cacert 'certs/ca.pem' \\
              -H 'authorization: bearer eyJ.x.y' \\
              -H 'apns-topic: com.example.app' \\
              -H 'apns-push-type: alert' \\
              -H 'apns-priority: 5' \\
              --data-binary '{"aps":{"alert":"it'\\''s here"}}' \\
              'https://127.0.0.1:2197/3/device/abcd'
            """)
        let read = APNsClientRequest(method: "GET", path: "/1/apps/x/all-channels")
        #expect(read.curlCommand(baseURL: "https://h", caFile: nil) == "curl -sS -i --http2 \\\n  -X GET \\\n  'https://h/1/apps/x/all-channels'")
    }

    /// A shell reads each quoted word back exactly, whatever characters it holds.
    @Test func quotingSurvivesTheShell() throws {
        let awkward = #"it's "quoted" $HOME `date` \n ''"#
        let request = APNsClientRequest(method: "POST", path: "/p", headers: [.init("x-test", awkward)], body: Array(awkward.utf8))
        let command = request.curlCommand(baseURL: "", caFile: nil)
        // The same words, handed to printf instead of curl.
        let words = command.replacingOccurrences(of: "curl -sS -i --http2", with: "printf '%s\\n'").replacingOccurrences(of: "-H ", with: "").replacingOccurrences(of: "--data-binary ", with: "")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", words]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        shell.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed == "x-test: \(awkward)\n\(awkward)\n/p\n")
    }
}
