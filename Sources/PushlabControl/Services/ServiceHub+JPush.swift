import Foundation
import PushlabCore
import PushlabServices
import PushlabSimulator

/// JPush's REST API v3 (docs/SERVICES.md, "JPush"): push and validate (api.jpush.cn), the
/// device API (device.jpush.cn) and the report API (report.jpush.cn, `+JPushReport`), on one listener. Every
/// failure carries `{"error":{"code","message"}}`, which JPush's clients read.
extension ServiceHub {
    enum JPushAPI { case push, device, report }

    public func jpush(_ request: ServiceHTTPRequest) async -> ServiceHTTPResponse {
        let path = Array(request.segments.drop { $0 != "v3" }.dropFirst())
        guard request.segments.first == "v3", let first = path.first else {
            return Self.failure(JPushError(.systemError, "No such API: \(request.path)"), status: 404)
        }
        let api: JPushAPI = switch first {
        case "push": .push
        case "devices", "aliases", "tags": .device
        default: .report
        }
        let app: JPushApp
        switch authenticate(request.headers["authorization"], for: api) {
        case .success(let found): app = found
        case .failure(let error): return Self.failure(error)
        }
        guard let rate = rateLimitHeaders(for: app.appKey) else { return Self.failure(JPushError(.rateLimitExceeded)) }
        var response: ServiceHTTPResponse
        switch api {
        case .push:
            guard path.count <= 2, path.count == 1 || path[1] == "validate" else { return Self.failure(JPushError(.systemError, "No such API: \(request.path)"), status: 404) }
            response = await push(request, app: app, validate: path.count == 2)
        case .device:
            response = device(request, path: path, app: app)
        case .report:
            response = report(request, path: path, app: app)
        }
        response.headers += rate
        return response
    }

    private func authenticate(_ header: String?, for api: JPushAPI) -> Result<JPushApp, JPushError> {
        let apps = state.withLock { Array($0.apps.jpush) }
        switch JPushApp.authenticate(header, among: apps) {
        case .success(let app): return .success(app)
        case .failure(let error):
            switch api {
            case .push: return .failure(error)
            case .device: return .failure(JPushError(header == nil ? .deviceEmptyCredentials : .deviceAuthenticationFailed, "Basic authentication failed"))
            case .report: return .failure(JPushError(.reportAuthenticationFailed))
            }
        }
    }

    // MARK: Push

    private func push(_ request: ServiceHTTPRequest, app: JPushApp, validate: Bool) async -> ServiceHTTPResponse {
        guard request.method == "POST" else { return Self.failure(JPushError(.onlyPost)) }
        let push: JPushPush
        do {
            push = try JPushPush.parse(request.body)
        } catch {
            return Self.failure(error)
        }
        let time = now
        let outcome = state.withLock { $0.jpush.send(push, from: app, at: time, validate: validate) }
        let result: JPushPushResult
        switch outcome {
        case .success(let sent): result = sent
        case .failure(let error): return Self.failure(error)
        }
        let ok = ServiceHTTPResponse(status: 200, body: result.ids.body, headers: [("Content-Type", "application/json; charset=utf-8")])
        if validate || result.repeated { return ok }
        let messageID = String(result.ids.messageID)
        // Each phone once: its custom message's way, if it had one.
        var targets = result.deliveredNow.map { (id: $0.registrationID, channel: ServiceMessage.Channel?.some(.deliveredNow)) }
            + result.kept.map { (id: $0, channel: ServiceMessage.Channel?.some(.kept)) }
        let messaged = Set(targets.map(\.id))
        targets += result.apnsRequests.filter { !messaged.contains($0.registrationID) }.map { (id: $0.registrationID, channel: nil) }
        log(.jpush, app: app.appKey, id: messageID, at: time, targets: targets)
        deliver(result.deliveredNow.map { (PhoneKey(service: .jpush, id: $0.registrationID), Self.sdkMessage($0)) })
        // Answered once APNs has answered every phone's request: what the phones observe can be
        // asserted as soon as the provider has its msg_id.
        let answers = await sendToAPNs(result.apnsRequests.map { ($0.registrationID, $0.plan) }, credential: app.apnsCredential)
        state.withLock { state in
            for (id, answer) in answers {
                if case .success(let apns) = answer { state.jpush.apnsAnswered(messageID: result.ids.messageID, status: apns.status) }
                state.log.update(service: .jpush, id: messageID, target: id) { $0.record(answer) }
            }
        }
        return ok
    }

    /// Sends each phone's request, all at once; the answers by registration id or cid.
    func sendToAPNs(_ plans: [(id: String, plan: APNsRequestPlan)], credential: APNsCredential) async -> [(String, Result<APNsAnswer, ServiceAPNsFailure>)] {
        await withTaskGroup(of: (String, Result<APNsAnswer, ServiceAPNsFailure>).self) { group in
            for (id, plan) in plans {
                group.addTask { [apns] in (id, await apns.send(plan, with: credential)) }
            }
            var answers: [(String, Result<APNsAnswer, ServiceAPNsFailure>)] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
    }

    // MARK: Device API

    private func device(_ request: ServiceHTTPRequest, path: [String], app: JPushApp) -> ServiceHTTPResponse {
        let body = request.body.isEmpty ? nil : try? JSONParser.parse(request.body)
        if !request.body.isEmpty, body?.isObject != true { return Self.failure(JPushError(.deviceInvalidParameter, "Request body is not a JSON object")) }
        return state.withLock { state -> ServiceHTTPResponse in
            let own = state.jpush.directory.devices.values.filter { $0.appKey == app.appKey }
            switch (request.method, path.count, path[0]) {
            case ("POST", 2, "devices") where path[1] == "status":
                guard case .array(let ids)? = body?["registration_ids"], ids.count <= 1_000 else {
                    return Self.failure(JPushError(.deviceInvalidParameter, "registration_ids must be an array of at most 1000 ids"))
                }
                var members: [(key: String, value: JSONValue)] = []
                for case .string(let id) in ids {
                    guard let device = state.jpush.directory.devices[id], device.appKey == app.appKey else { continue }
                    members.append((id, .object([("online", .bool(device.connected))])))
                }
                return .json(200, .object(members))
            case ("GET", 2, "devices"):
                guard let device = state.jpush.directory.devices[path[1]], device.appKey == app.appKey else {
                    return Self.failure(JPushError(.deviceInvalidParameter, "registration_id is not of this app: \(path[1])"))
                }
                return .json(200, .object([
                    ("tags", .array(device.tags.sorted().map(JSONValue.string))), ("alias", device.alias.map(JSONValue.string) ?? .null),
                    ("mobile", device.mobile.map(JSONValue.string) ?? .null),
                ]))
            case ("POST", 2, "devices"):
                guard let device = state.jpush.directory.devices[path[1]], device.appKey == app.appKey else {
                    return Self.failure(JPushError(.deviceInvalidParameter, "registration_id is not of this app: \(path[1])"))
                }
                var changed = device
                if let tags = body?["tags"] {
                    if tags.stringValue == "" {
                        changed.tags = []
                    } else {
                        guard tags.isObject, let add = Self.strings(tags["add"]), let remove = Self.strings(tags["remove"]), add.count <= 100, remove.count <= 100 else {
                            return Self.failure(JPushError(.deviceInvalidParameter, "tags must be \"\" or {\"add\":[…],\"remove\":[…]} with at most 100 tags each"))
                        }
                        changed.tags.formUnion(add)
                        changed.tags.subtract(remove)
                        guard changed.tags.count <= JPushDirectory.maximumTagsPerDevice else {
                            return Self.failure(JPushError(.deviceInvalidParameter, "A device holds at most \(JPushDirectory.maximumTagsPerDevice) tags"))
                        }
                    }
                }
                if let alias = body?["alias"] {
                    guard let text = alias.stringValue, text.utf8.count <= 40 else { return Self.failure(JPushError(.deviceInvalidParameter, "alias must be a string of at most 40 bytes")) }
                    changed.alias = text.isEmpty ? nil : text
                }
                if let mobile = body?["mobile"] {
                    guard let text = mobile.stringValue else { return Self.failure(JPushError(.deviceInvalidParameter, "mobile must be a string")) }
                    changed.mobile = text.isEmpty ? nil : text
                }
                state.jpush.directory.update(device.registrationID) { $0 = changed }
                return ServiceHTTPResponse(status: 200, body: "")
            case ("GET", 2, "aliases"):
                let ids = own.filter { $0.alias == path[1] }.sorted { $0.userID < $1.userID }.prefix(10).map { JSONValue.string($0.registrationID) }
                return .json(200, .object([("registration_ids", .array(Array(ids)))]))
            case ("DELETE", 2, "aliases"):
                for device in own where device.alias == path[1] { state.jpush.directory.update(device.registrationID) { $0.alias = nil } }
                return ServiceHTTPResponse(status: 200, body: "")
            case ("GET", 1, "tags"):
                let tags = Set(own.flatMap(\.tags)).sorted().prefix(100).map(JSONValue.string)
                return .json(200, .object([("tags", .array(Array(tags)))]))
            case ("GET", 4, "tags") where path[2] == "registration_ids":
                let holds = state.jpush.directory.devices[path[3]].map { $0.appKey == app.appKey && $0.tags.contains(path[1]) } ?? false
                return .json(200, .object([("result", .bool(holds))]))
            case ("POST", 2, "tags"):
                guard let ids = body?["registration_ids"], ids.isObject, let add = Self.strings(ids["add"]), let remove = Self.strings(ids["remove"]),
                      add.count <= 1_000, remove.count <= 1_000 else {
                    return Self.failure(JPushError(.deviceInvalidParameter, "registration_ids must be {\"add\":[…],\"remove\":[…]} with at most 1000 ids each"))
                }
                for id in add where state.jpush.directory.devices[id]?.appKey == app.appKey { state.jpush.directory.update(id) { $0.tags.insert(path[1]) } }
                for id in remove where state.jpush.directory.devices[id]?.appKey == app.appKey { state.jpush.directory.update(id) { $0.tags.remove(path[1]) } }
                return ServiceHTTPResponse(status: 200, body: "")
            case ("DELETE", 2, "tags"):
                for device in own where device.tags.contains(path[1]) { state.jpush.directory.update(device.registrationID) { $0.tags.remove(path[1]) } }
                return ServiceHTTPResponse(status: 200, body: "")
            default:
                return Self.failure(JPushError(.deviceInvalidParameter, "No such device API: \(request.method) \(request.path)"), status: 404)
            }
        }
    }

    /// An absent list is empty; anything but an array of strings is nil.
    private static func strings(_ value: JSONValue?) -> [String]? {
        guard let value else { return [] }
        guard case .array(let items) = value else { return nil }
        let texts = items.compactMap(\.stringValue)
        return texts.count == items.count ? texts : nil
    }

    static func failure(_ error: JPushError, status: Int? = nil) -> ServiceHTTPResponse {
        ServiceHTTPResponse(status: status ?? error.httpStatus, body: error.body(), headers: [("Content-Type", "application/json; charset=utf-8")])
    }
}
