/// A failure at run time (no server, no store): ArgumentParser prints `Error: <description>`
/// without the usage text a `ValidationError` gets, which would suggest the command line was wrong.
struct CLIFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
