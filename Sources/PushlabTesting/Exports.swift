// A test that imports PushlabTesting needs the types its API speaks in (Observation,
// AppCallback, AppState, FaultRule, APNsPolicy, SimulatorSettings, ...). Re-exporting the two
// modules that define them spares every consumer two more imports and two more products.
@_exported import PushlabCore
@_exported import PushlabSimulator
// `RuntimeConfiguration.Delivery` is part of `PushlabTestServer.start`.
@_exported import struct PushlabRuntime.RuntimeConfiguration
