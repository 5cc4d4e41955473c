/// `2026-01-01T00:00:00.000Z` text for epoch milliseconds, without Foundation's formatters
/// (cheap enough for every observation).
public enum ISO8601Milliseconds {
    public static func format(_ time: EpochMilliseconds) -> String {
        let millisecond = Int(((time % 1000) + 1000) % 1000)
        let f = CivilTime.fields(time, utcOffsetSeconds: 0)
        return pad(f.year, 4) + "-" + pad(f.month, 2) + "-" + pad(f.day, 2) + "T"
            + pad(f.hour, 2) + ":" + pad(f.minute, 2) + ":" + pad(f.second, 2)
            + "." + pad(millisecond, 3) + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
