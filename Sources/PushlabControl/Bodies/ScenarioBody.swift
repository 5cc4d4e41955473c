/// `POST /v1/scenario`: the scenario file to load, as the server's process can open it.
struct ScenarioBody: ControlBody {
    var path: String

    static let shape = BodyShape.fields(["path"])
    static let example = #"{"path":"/work/pushlab/scenarios/problems/uninstalled-app-410.yaml"}"#
}
