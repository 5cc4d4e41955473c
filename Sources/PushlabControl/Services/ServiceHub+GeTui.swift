import PushlabCore
import PushlabOpenSSL
import PushlabServices
import PushlabSimulator

/// GeTui's REST API v2 (docs/SERVICES.md, "GeTui"): `/v2/{appId}/…` with auth, the push APIs
/// (toSingle, toList, toApp), the user API's aliases, status and badge, and the task report.
/// Every answer is the `{"code","msg","data"}` envelope.
extension ServiceHub {
    public func getui(_ request: ServiceHTTPRequest) async -> ServiceHTTPResponse {
        let segments = request.segments
        guard segments.count >= 3, segments[0] == "v2" else { return Self.failure(GeTuiError(.notFound, "No such API: \(request.path)")) }
        let appID = segments[1]
        let rest = Array(segments.dropFirst(2))
        guard let entry = state.withLock({ $0.apps.getui.first { $0.app.appID == appID } }) else {
            return Self.failure(GeTuiError(.invalidParameter, "appId is invalid: \(appID)"))
        }
        let time = now
        switch (request.method, rest.first, rest.count) {
        case ("POST", "auth", 1):
            let issued = state.withLock { state in
                state.getui.tokens[appID]!.authenticate(request.body, app: entry.app, now: time, sha256: { Digest.sha256($0) })
            }
            switch issued {
            case .success(let token): return ServiceHTTPResponse(status: 200, body: token.body, headers: Self.jsonHeaders)
            case .failure(let error): return Self.failure(error)
            }
        case ("DELETE", "auth", 2):
            state.withLock { $0.getui.tokens[appID]!.revoke(rest[1]) }
            return Self.success(nil)
        default:
            break
        }
        if let error = state.withLock({ $0.getui.tokens[appID]!.check(request.headers["token"], now: time) }) { return Self.failure(error) }
        switch (request.method, rest) {
        case ("POST", ["push", "single", "cid"]):
            return await push(request, endpoint: .single, entry: entry)
        case ("POST", ["push", "all"]):
            return await push(request, endpoint: .all, entry: entry)
        case ("POST", ["push", "list", "message"]):
            let push: GeTuiPush
            do {
                push = try GeTuiPush.parse(request.body, for: .listMessage)
            } catch {
                return Self.failure(error)
            }
            let taskID = state.withLock { state in
                let taskID = state.getui.newTaskID("RASL", at: time)
                state.listTasks[taskID] = (push, appID)
                return taskID
            }
            return Self.success(.object([("taskid", .string(taskID))]))
        case ("POST", ["push", "list", "cid"]):
            return await listPush(request, entry: entry)
        case ("POST", ["user", "alias"]):
            return bindAliases(request, appID: appID)
        case ("GET", let path) where path.count == 4 && path[0...2] == ["user", "alias", "cid"]:
            let alias = state.withLock { state in state.getui.devices[path[3]].flatMap { $0.appID == appID ? $0.alias : nil } }
            guard let alias else { return Self.failure(GeTuiError(.invalidParameter, "cid has no alias: \(path[3])")) }
            return Self.success(.object([("alias", .string(alias))]))
        case ("GET", let path) where path.count == 4 && path[0...2] == ["user", "cid", "alias"]:
            let ids = state.withLock { state in
                state.getui.devices.values.filter { $0.appID == appID && $0.alias == path[3] }.map(\.clientID).sorted()
            }
            return Self.success(.object([("cid", .array(ids.map(JSONValue.string)))]))
        case ("GET", let path) where path.count == 3 && path[0...1] == ["user", "status"]:
            let ids = path[2].split(separator: ",").map(String.init)
            guard ids.count <= 1_000 else { return Self.failure(GeTuiError(.invalidParameter, "cid size over limit")) }
            let members: [(key: String, value: JSONValue)] = state.withLock { state in
                ids.compactMap { id in
                    guard let device = state.getui.devices[id], device.appID == appID else { return nil }
                    return (id, .object([("status", .string(device.connected ? "online" : "offline"))]))
                }
            }
            return Self.success(.object(members))
        case ("POST", let path) where path.count == 4 && path[0...2] == ["user", "badge", "cid"]:
            let ids = path[3].split(separator: ",").map(String.init)
            guard ids.count <= 200 else { return Self.failure(GeTuiError(.invalidParameter, "cid size over limit")) }
            guard let body = try? JSONParser.parse(request.body), let text = body["badge"]?.stringValue, let change = BadgeChange(text: text) else {
                return Self.failure(GeTuiError(.invalidParameter, "badge must be \"N\", \"+N\" or \"-N\""))
            }
            state.withLock { state in
                for id in ids where state.getui.devices[id]?.appID == appID { state.getui.update(id) { $0.badge = change.resolved(against: $0.badge) } }
            }
            return Self.success(nil)
        case ("GET", let path) where path.count == 4 && path[0...2] == ["report", "push", "task"]:
            return taskReport(path[3].split(separator: ",").map(String.init), appID: appID)
        default:
            return Self.failure(GeTuiError(.notFound, "No such API: \(request.method) \(request.path)"))
        }
    }

    private func push(_ request: ServiceHTTPRequest, endpoint: GeTuiPush.Endpoint, entry: GeTuiPortalApp) async -> ServiceHTTPResponse {
        let push: GeTuiPush
        do {
            push = try GeTuiPush.parse(request.body, for: endpoint)
        } catch {
            return Self.failure(error)
        }
        return await send(push, clientIDs: push.clientIDs, taskID: nil, entry: entry, taskOnly: endpoint == .all)
    }

    private func listPush(_ request: ServiceHTTPRequest, entry: GeTuiPortalApp) async -> ServiceHTTPResponse {
        guard let body = try? JSONParser.parse(request.body), body.isObject else { return Self.failure(GeTuiError(.invalidParameter, "request body must be JsonString")) }
        guard let taskID = body["taskid"]?.stringValue, !taskID.isEmpty else { return Self.failure(.empty("taskid")) }
        guard case .array(let items)? = body["audience"]?["cid"], !items.isEmpty else { return Self.failure(.empty("cid")) }
        guard items.count <= GeTuiRules.maximumListClientIDs else { return Self.failure(GeTuiError(.invalidParameter, "cid size over limit")) }
        let ids = items.compactMap(\.stringValue)
        guard ids.count == items.count else { return Self.failure(.invalid("cid")) }
        guard let task = state.withLock({ $0.listTasks[taskID] }), task.appID == entry.app.appID else {
            return Self.failure(GeTuiError(.invalidTask, "taskid is invalid: \(taskID)"))
        }
        let async = body["is_async"] == .bool(true)
        var response = await send(task.push, clientIDs: ids, taskID: taskID, entry: entry, taskOnly: false)
        if async, response.status == 200 { response = Self.success(nil) }
        return response
    }

    /// Sends a push as GeTui does for iOS, by its strategy; answers once APNs answered.
    private func send(_ push: GeTuiPush, clientIDs: [String]?, taskID: String?, entry: GeTuiPortalApp, taskOnly: Bool) async -> ServiceHTTPResponse {
        let time = now
        let outcome = state.withLock { $0.getui.send(push, app: entry.app, clientIDs: clientIDs, taskID: taskID, at: time) }
        let result: GeTuiService.PushResult
        switch outcome {
        case .success(let sent): result = sent
        case .failure(let error): return Self.failure(error)
        }
        let strategy = push.iosStrategy
        let viaAPNs = Set(result.apnsRequests.map(\.clientID))
        let now = Set(result.deliveredNow.map(\.clientID))
        let transmits: Bool = if case .transmission = push.message { true } else { false }
        log(.getui, app: entry.app.appID, id: result.taskID, at: time, targets: result.statuses.map { cid, _ in
            let channel: ServiceMessage.Channel? = if now.contains(cid) {
                .deliveredNow
            } else if !transmits || strategy == 2 {
                nil
            } else if strategy == 4 && viaAPNs.contains(cid) {
                .awaitingAPNs
            } else {
                push.timeToLiveMilliseconds == nil ? nil : .kept
            }
            return (cid, channel)
        })
        state.withLock { state in
            var counts = state.getuiTasks[result.taskID] ?? GeTuiTaskCounts(appID: entry.app.appID)
            counts.target += result.statuses.count
            counts.received += result.deliveredNow.count
            counts.apnsTarget += result.apnsRequests.count
            state.getuiTasks[result.taskID] = counts
        }
        deliver(result.deliveredNow.map { (PhoneKey(service: .getui, id: $0.clientID), Self.sdkMessage($0)) })
        let answers = await sendToAPNs(result.apnsRequests.map { ($0.clientID, $0.plan) }, credential: entry.app.apnsCredential)
        let fallbacks: [GeTuiTransmission] = state.withLock { state in
            var fallbacks: [GeTuiTransmission] = []
            for (cid, answer) in answers {
                let status = (try? answer.get())?.status ?? 0
                if status == 200 { state.getuiTasks[result.taskID]?.apnsSent += 1 }
                let fallback = state.getui.apnsAnswered(taskID: result.taskID, clientID: cid, status: status, at: self.now)
                if let fallback { fallbacks.append(fallback) }
                state.log.update(service: .getui, id: result.taskID, target: cid) { row in
                    row.record(answer)
                    if row.channel == .awaitingAPNs { row.channel = status == 200 ? nil : fallback != nil ? .deliveredNow : .kept }
                }
            }
            state.getuiTasks[result.taskID]?.received += fallbacks.count
            return fallbacks
        }
        deliver(fallbacks.map { (PhoneKey(service: .getui, id: $0.clientID), Self.sdkMessage($0)) })
        if taskOnly { return Self.success(.object([("taskid", .string(result.taskID))])) }
        return ServiceHTTPResponse(status: 200, body: result.body, headers: Self.jsonHeaders)
    }

    private func bindAliases(_ request: ServiceHTTPRequest, appID: String) -> ServiceHTTPResponse {
        guard let body = try? JSONParser.parse(request.body), case .array(let list)? = body["data_list"], !list.isEmpty else {
            return Self.failure(.empty("data_list"))
        }
        guard list.count <= 1_000 else { return Self.failure(GeTuiError(.invalidParameter, "data_list size over limit")) }
        var pairs: [(cid: String, alias: String)] = []
        for item in list {
            guard let cid = item["cid"]?.stringValue, !cid.isEmpty else { return Self.failure(.empty("cid")) }
            guard let alias = item["alias"]?.stringValue, !alias.isEmpty, alias.count < 40 else { return Self.failure(.invalid("alias")) }
            pairs.append((cid, alias))
        }
        return state.withLock { state in
            for (cid, _) in pairs where state.getui.devices[cid]?.appID != appID {
                return Self.failure(GeTuiError(.invalidParameter, "target user is invalid"))
            }
            // One alias per cid: binding another replaces it [DOC].
            for (cid, alias) in pairs { state.getui.update(cid) { $0.alias = alias } }
            return Self.success(nil)
        }
    }

    private func taskReport(_ taskIDs: [String], appID: String) -> ServiceHTTPResponse {
        guard !taskIDs.isEmpty, taskIDs.count <= 200 else { return Self.failure(GeTuiError(.invalidParameter, "taskid size over limit")) }
        let members: [(key: String, value: JSONValue)] = state.withLock { state in
            taskIDs.compactMap { id in
                // toList and toApp tasks only, not toSingle [DOC].
                guard let counts = state.getuiTasks[id], counts.appID == appID, !id.hasPrefix("RASS") else { return nil }
                func channel(target: Int, received: Int) -> JSONValue {
                    .object([("target_num", .number(Double(target))), ("receive_num", .number(Double(received))), ("display_num", .number(0)), ("click_num", .number(0))])
                }
                return (id, .object([
                    ("total", .object([
                        ("msg_num", .number(Double(counts.target))), ("target_num", .number(Double(counts.target))),
                        ("receive_num", .number(Double(counts.received + counts.apnsSent))), ("display_num", .number(0)), ("click_num", .number(0)),
                    ])),
                    ("gt", channel(target: counts.target, received: counts.received)),
                    ("ios", channel(target: counts.apnsTarget, received: counts.apnsSent)),
                ]))
            }
        }
        return Self.success(.object(members))
    }

    static let jsonHeaders = [(name: "Content-Type", value: "application/json;charset=UTF-8")]

    static func success(_ data: JSONValue?) -> ServiceHTTPResponse {
        var members: [(key: String, value: JSONValue)] = [("code", .number(0)), ("msg", .string("success"))]
        if let data { members.append(("data", data)) }
        return ServiceHTTPResponse(status: 200, body: JSONValue.object(members).description, headers: jsonHeaders)
    }

    static func failure(_ error: GeTuiError) -> ServiceHTTPResponse {
        ServiceHTTPResponse(status: error.httpStatus, body: error.body, headers: jsonHeaders)
    }
}
