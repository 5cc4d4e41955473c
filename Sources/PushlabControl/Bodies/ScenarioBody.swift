/// `POST /v1/scenario`: the scenario file to load, as the server's process can open it: absolute,
/// or relative to the directory the server was started in.
struct ScenarioBody: ControlBody {
    var path: String

    static let shape = BodyShape.fields(["path"])
    static let example = #"{"path":"scenarios/problems/uninstalled-app-410.yaml"}"#
}
