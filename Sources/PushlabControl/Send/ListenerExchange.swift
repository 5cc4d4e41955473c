import NIOPosix
import PushlabClient
import PushlabCore

/// One request to one of this server's own APNs listeners, over TLS and HTTP/2 with Pushlab's
/// client, as a provider sends it: a connection of its own, closed after the answer. It goes
/// through everything a provider's request does (the transport, the fault rules, the APNs rules).
enum ListenerExchange {
    enum Outcome: Sendable {
        case answered(APNsAnswer)
        /// No answer came: the connection failed or closed, the stream was reset, or `timeout` passed.
        case noAnswer(String)
    }

    static func send(_ request: APNsClientRequest, to listener: APNsListener, timeout: Duration) async -> Outcome {
        // The peer is this process's listener at the address it bound: there is nothing to verify,
        // and the CA file that signed its certificate need not be where the binary runs.
        let configuration = APNsClient.Configuration(host: connectableHost(listener.host), port: listener.port, verifyServer: false)
        let client: APNsClient
        do {
            client = try await APNsClient.connect(configuration, group: MultiThreadedEventLoopGroup.singleton)
        } catch {
            return .noAnswer("\(error)")
        }
        let outcome = await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do {
                    return .answered(try await client.send(request))
                } catch {
                    return .noAnswer("\(error)")
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            // Whichever ends first; closing the connection ends a send still waiting.
            let first = await group.next() ?? nil
            group.cancelAll()
            await client.close()
            return first ?? .noAnswer("No answer within \(timeout.components.seconds) seconds (a fault rule's delayMs may hold it longer)")
        }
        return outcome
    }

    /// A wildcard address is reached at the loopback address of its family.
    static func connectableHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "::1"
        default: host
        }
    }
}
