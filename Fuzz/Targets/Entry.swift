#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

// libFuzzer's entry point: one binary, the target named by PUSHLAB_FUZZ_TARGET (Fuzz/run.sh).
// Each target feeds the bytes to one parser of untrusted input and checks what must hold
// whatever the bytes are, beyond not crashing.

let target: (UnsafeRawBufferPointer) -> Void = {
    switch getenv("PUSHLAB_FUZZ_TARGET").map({ String(cString: $0) }) {
    case "json": return fuzzJSON
    case "provider-token": return fuzzProviderToken
    case "certificate": return fuzzCertificateExtensions
    case "request": return fuzzRequest
    case let other:
        fatalError("PUSHLAB_FUZZ_TARGET must be json, provider-token, certificate or request, not \(other ?? "unset")")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
