import Foundation
import PushlabCore
import PushlabScenario
import PushlabSimulator
import Yams

/// Any scenario file loads, or is refused with a message that names the file; a loaded one
/// installs into a fresh world and simulator (or is refused by the simulator), and the bodies of
/// its script's control calls are JSON the control API can read.
func fuzzScenario(_ bytes: UnsafeRawBufferPointer) {
    let yaml = String(decoding: bytes, as: UTF8.self)
    // Ten million generated devices is a valid (and slow) scenario; the fuzzer looks for
    // crashes, not for the price of a large one.
    guard generatedCount(in: yaml) <= 1_000 else { return }
    let scenario: Scenario
    do {
        scenario = try Scenario.parse(yaml: yaml, source: scenarioSource)
    } catch let error as Scenario.LoadError {
        if !error.description.contains(scenarioSource) { fatalError("a refusal that does not name the file: \(error.description)") }
        return
    } catch {
        fatalError("the loader threw \(type(of: error)), not a LoadError: \(error)")
    }
    for step in scenario.script?.steps ?? [] {
        guard case .control(let call) = step.action, let body = call.body else { continue }
        if (try? JSONParser.parse(Array(body.description.utf8))) != body {
            fatalError("\(step.title): the body \(body.description) does not read back as JSON")
        }
    }
    let world = APNsWorld()
    let simulator = DeviceSimulator(world: world, clock: ManualClock(), tokenSeed: 1)
    do {
        try scenario.install(into: world, simulator: simulator)
    } catch {
        if error.description.isEmpty { fatalError("the simulator refused the scenario without a word") }
    }
}

/// Where the input pretends to be: beside the shipped problem scenarios, so that the corpus's
/// key files (`../../certs/…`) are found and the loader gets past them to the script.
private let scenarioSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("scenarios/problems/fuzz-input.yaml").path

/// The devices and tokens `generatedDevices` and `generatedDeviceTokens` ask for.
private func generatedCount(in yaml: String) -> Int {
    guard let root = try? Yams.compose(yaml: yaml)?.mapping else { return 0 }
    let entries = ["generatedDevices", "generatedDeviceTokens"].flatMap { root[$0]?.sequence ?? [] }
    return entries.reduce(0) { total, entry in total + min(max(entry.mapping?["count"]?.int ?? 0, 0), 1_000_000) }
}
