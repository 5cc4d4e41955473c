import PushlabCore
import Testing

@Suite("JSON text: written compactly, read back unchanged")
struct JSONValueTests {
    @Test func escapesWhatJSONRequiresAndPassesUTF8Through() {
        let value = JSONValue.object([
            ("quote\"back\\slash", .string("line\nreturn\rtab\t\u{01}bell")),
            ("中文", .string("推送 🚀")),
        ])
        #expect(value.description == #"{"quote\"back\\slash":"line\nreturn\rtab\t\u0001bell","中文":"推送 🚀"}"#)
    }

    @Test("A number past Double's range is refused: infinity cannot be written back (found by Fuzz/run.sh)")
    func overflowingNumbersAreRefused() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("[2.5e9992]") }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("-1e400") }
        #expect((try? JSONParser.parse("1e308")) == .number(1e308))
    }

    @Test func numbersBooleansNullAndNesting() {
        let value = JSONValue.array([.number(42), .number(-7), .number(1.5), .bool(true), .bool(false), .null, .object([]), .array([])])
        #expect(value.description == "[42,-7,1.5,true,false,null,{},[]]")
    }

    @Test("Parsing what was written gives the same value, keys in their order", arguments: [
        #"{"aps":{"alert":{"title":"Hi","body":"there"},"badge":3,"sound":"default"},"z":1,"a":[1,2,{"k":null}]}"#,
        #"{"text":"\"quoted\" \\ and \u001f and é"}"#,
        #"[]"#,
    ])
    func roundTrip(_ text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(try JSONParser.parse(value.description) == value)
        #expect(value.description == (try JSONParser.parse(value.description)).description)
    }

    @Test("Integers a double holds exactly are written as digits, to 2^53")
    func largeIntegersAsDigits() {
        #expect(JSONValue.number(1_690_408_000_000_000).description == "1690408000000000")
        #expect(JSONValue.number(9_007_199_254_740_992).description == "9007199254740992")
        #expect(JSONValue.number(-9_007_199_254_740_992).description == "-9007199254740992")
        #expect(JSONValue.number(1.5e16).description != "15000000000000000")
    }
}
