@testable import PushlabControl
import Testing

@Suite("pushlab_apns_answer_seconds")
struct AnswerTimeHistogramTests {
    @Test func connectionsCountLocallyAndTheSumIsRenderedInPrometheusText() {
        let histogram = AnswerTimeHistogram(name: "answer_seconds", help: "Answer time")
        var first = AnswerTimeHistogram.Counts()
        first.record(nanoseconds: 50_000)  // on a bound: counted in that bucket (le is "less or equal")
        first.record(nanoseconds: 50_001)
        first.record(nanoseconds: 3_000_000)
        var second = AnswerTimeHistogram.Counts()
        second.record(nanoseconds: 20_000_000_000)  // above every bound: only +Inf
        histogram.add(&first)
        histogram.add(&second)
        #expect(first.count == 0 && second.count == 0, "added counts start again from zero")
        histogram.add(&first)

        var buffer: [UInt8] = []
        histogram.render(into: &buffer)
        let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.first == "# HELP answer_seconds Answer time")
        #expect(lines[1] == "# TYPE answer_seconds histogram")
        #expect(lines.contains(#"answer_seconds_bucket{le="0.00005"} 1"#))
        #expect(lines.contains(#"answer_seconds_bucket{le="0.0001"} 2"#))
        #expect(lines.contains(#"answer_seconds_bucket{le="0.0025"} 2"#))
        #expect(lines.contains(#"answer_seconds_bucket{le="0.005"} 3"#), "cumulative")
        #expect(lines.contains(#"answer_seconds_bucket{le="10.0"} 3"#))
        #expect(lines.contains(#"answer_seconds_bucket{le="+Inf"} 4"#))
        #expect(lines.contains("answer_seconds_sum 20.003100001"))
        #expect(lines.last == "answer_seconds_count 4")
        #expect(lines.count == 2 + AnswerTimeHistogram.bounds.count + 3)
    }
}
