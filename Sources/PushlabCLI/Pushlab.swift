import ArgumentParser

@main
struct Pushlab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushlab",
        abstract: "An end-to-end mock of Apple's Push Notification service.",
        discussion: """
        Pushlab speaks Apple's HTTP/2 provider API on loopback, so provider code can be tested \
        offline and in CI against the answers Apple would give.
        """,
        subcommands: [Serve.self, Send.self, Services.self, Channels.self, Token.self, Devices.self, Observations.self, Report.self, Latency.self, Run.self, Certs.self]
    )
}
