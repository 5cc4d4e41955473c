import Foundation
import Hummingbird
import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: the dashboard's page and files")
struct DashboardRouteTests {
    @Test func thePageComesWithItsTypeAndPolicy() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let page = try await client.call(.get, "/")
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-cache")
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(page.headers[.contentSecurityPolicy]?.contains("connect-src 'self'") == true)
            #expect(page.text.contains(#"<script type="module" src="/dashboard/main.js"></script>"#))
            // The page's own query (a link to some phones) is not the API's business.
            #expect(try await client.call(.get, "/?devices=ann").status == 200)

            for (file, type) in [("main.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8"), ("favicon.svg", "image/svg+xml")] {
                let answer = try await client.call(.get, "/dashboard/\(file)")
                #expect(answer.status == 200, "\(file)")
                #expect(answer.headers[.contentType] == type, "\(file)")
                #expect(answer.headers[.contentSecurityPolicy] == nil, "\(file)")
                #expect(!answer.text.isEmpty, "\(file)")
            }
            expectError(try await client.call(.get, "/dashboard/missing.js"), 404, containing: "No dashboard file missing.js")
            expectError(try await client.call(.post, "/"), 405, containing: "/ takes GET, not POST")
        }
    }

    @Test func aFileTheBrowserHoldsIsNotSentAgain() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let first = try await client.call(.get, "/dashboard/style.css")
            let etag = try #require(first.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 18)
            let again = try await client.execute(uri: "/dashboard/style.css", method: .get, headers: [.ifNoneMatch: "\"0000000000000000\", \(etag)"]) { $0 }
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            #expect(again.headers[.eTag] == etag)
            let other = try await client.execute(uri: "/dashboard/style.css", method: .get, headers: [.ifNoneMatch: "\"0000000000000000\""]) { $0 }
            #expect(other.status == .ok)
            #expect(other.body.readableBytes == first.text.utf8.count)
        }
    }

    /// Every file the page loads, and every module a module imports, is one the server has.
    @Test func everyFileThePageNamesIsServed() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            var wanted = ["index.html"]
            var seen = Set<String>()
            while let name = wanted.popLast() {
                guard seen.insert(name).inserted else { continue }
                let answer = try await client.call(.get, name == "index.html" ? "/" : "/dashboard/\(name)")
                #expect(answer.status == 200, "\(name) is named but not served")
                wanted += Self.references(in: answer.text)
            }
            #expect(seen.isSuperset(of: ["main.js", "style.css", "favicon.svg", "api.js", "phone.js", "timeline.js", "send.js", "health.js"]))
        }
    }

    @Test func thePageNeedsNoTokenButTheRoutesItCallsDo() async throws {
        let h = try ControlHarness()
        let application = Application(router: h.api.router(token: "s3cret"))
        try await application.test(.router) { client in
            #expect(try await client.call(.get, "/").status == 200)
            #expect(try await client.call(.get, "/dashboard/main.js").status == 200)
            expectError(try await client.call(.get, "/v1/health"), 401, containing: "authorization: Bearer")
            expectError(try await client.call(.post, "/dashboard/main.js"), 401, containing: "authorization: Bearer")
        }
    }

    /// `/dashboard/x` and `./x` names in HTML attributes and JavaScript imports.
    static func references(in text: String) -> [String] {
        let patterns = [#"(?:src|href)="/dashboard/([\w.-]+)""#, #"from "\./([\w.-]+)""#]
        return patterns.flatMap { pattern -> [String] in
            let regex = try! NSRegularExpression(pattern: pattern)
            return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
    }
}
