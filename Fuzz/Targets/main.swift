import CLibFuzzerDriver
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

// libFuzzer's driver over one target, the one PUSHLAB_FUZZ_TARGET names (Fuzz/run.sh). Each
// target feeds the bytes to one parser of untrusted input and checks what must hold whatever
// the bytes are, beyond not crashing.

let targets: [String: (UnsafeRawBufferPointer) -> Void] = [
    "json": fuzzJSON,
    "provider-token": fuzzProviderToken,
    "certificate": fuzzCertificateExtensions,
    "request": fuzzRequest,
    "scenario": fuzzScenario,
    "control-body": fuzzControlBody,
]

let name = getenv("PUSHLAB_FUZZ_TARGET").map { String(cString: $0) }
guard let name, let chosen = targets[name] else {
    fatalError("PUSHLAB_FUZZ_TARGET must be one of \(targets.keys.sorted().joined(separator: ", ")), not \(name ?? "unset")")
}
nonisolated(unsafe) let target = chosen

exit(pushlab_run_libfuzzer(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    target(UnsafeRawBufferPointer(start: data, count: size))
    return 0
})
