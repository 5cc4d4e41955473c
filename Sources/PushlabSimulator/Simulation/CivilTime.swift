import PushlabCore

extension CivilTime {
    /// `anchor` plus `count` calendar units; a month or year counted from the anchor, so the 31st
    /// falls on the last day of a shorter month and returns to the 31st after it (as NSCalendar).
    static func adding(_ interval: LocalTrigger.RepeatInterval, count: Int, to anchor: EpochMilliseconds, utcOffsetSeconds: Int) -> EpochMilliseconds {
        let step: EpochMilliseconds? = switch interval {
        case .minute: 60_000
        case .hour: 3_600_000
        case .day: 86_400_000
        case .week: 7 * 86_400_000
        case .month, .year: nil
        }
        if let step { return anchor + step * EpochMilliseconds(count) }
        let f = fields(anchor, utcOffsetSeconds: utcOffsetSeconds)
        let months = f.month - 1 + count * (interval == .month ? 1 : 12)
        let year = f.year + months / 12
        let month = months % 12 + 1
        let day = min(f.day, daysIn(year: year, month: month))
        let millisecond = ((anchor % 1000) + 1000) % 1000
        return time(year: year, month: month, day: day, hour: f.hour, minute: f.minute, second: f.second, utcOffsetSeconds: utcOffsetSeconds) + millisecond
    }

    /// The first `anchor + k units` (k ≥ 1) after `time`.
    static func nextRepeat(_ interval: LocalTrigger.RepeatInterval, of anchor: EpochMilliseconds, after time: EpochMilliseconds, utcOffsetSeconds: Int) -> EpochMilliseconds {
        // Start near the answer: whole units between anchor and time, counted roughly.
        let roughUnit: EpochMilliseconds = switch interval {
        case .minute: 60_000
        case .hour: 3_600_000
        case .day: 86_400_000
        case .week: 7 * 86_400_000
        case .month: 31 * 86_400_000
        case .year: 366 * 86_400_000
        }
        var count = max(1, Int((time - anchor) / roughUnit))
        while true {
            let candidate = adding(interval, count: count, to: anchor, utcOffsetSeconds: utcOffsetSeconds)
            if candidate > time { return candidate }
            count += 1
        }
    }
}

extension CalendarMatch {
    func validate() throws(SimulatorError) {
        let ranges: [(String, Int?, ClosedRange<Int>)] = [
            ("month", month, 1...12), ("day", day, 1...31), ("weekday", weekday, 1...7),
            ("hour", hour, 0...23), ("minute", minute, 0...59), ("second", second, 0...59),
        ]
        for (name, value, range) in ranges {
            if let value, !range.contains(value) {
                throw SimulatorError(.invalid, "Calendar trigger \(name) must be \(range.lowerBound)...\(range.upperBound), not \(value)")
            }
        }
        if ranges.allSatisfy({ $0.1 == nil }) { throw SimulatorError(.invalid, "A calendar trigger needs at least one date component") }
        if let month, let day, day > CivilTime.daysIn(year: 2024, month: month) {
            throw SimulatorError(.invalid, "Calendar trigger day \(day) never occurs in month \(month)")
        }
    }

    /// The first whole second strictly after `time` whose fields match; unset fields smaller than
    /// the largest set one are 0, as `NSCalendar.nextDate(... matchingPolicy: .nextTime)` treats them.
    func nextTime(after time: EpochMilliseconds, utcOffsetSeconds: Int) -> EpochMilliseconds? {
        let secondValue = second ?? 0
        let minuteValue = minute ?? (second == nil ? 0 : nil)
        let hourValue = hour ?? (minute == nil && second == nil ? 0 : nil)
        var candidateDay = CivilTime.fields(time, utcOffsetSeconds: utcOffsetSeconds)
        let startDays = CivilTime.days(fromCivil: candidateDay.year, candidateDay.month, candidateDay.day)
        // Within ~8 years every day/month/weekday combination that exists at all recurs (Feb 29).
        for offset in 0..<(366 * 8) {
            let (year, monthOfDay, dayOfMonth) = CivilTime.civil(fromDays: startDays + offset)
            let dayStart = CivilTime.time(year: year, month: monthOfDay, day: dayOfMonth, hour: 0, minute: 0, second: 0, utcOffsetSeconds: utcOffsetSeconds)
            candidateDay = CivilTime.fields(dayStart, utcOffsetSeconds: utcOffsetSeconds)
            if let month, month != monthOfDay { continue }
            if let day, day != dayOfMonth { continue }
            if let weekday, weekday != candidateDay.weekday { continue }
            for hourCandidate in hourValue.map({ [$0] }) ?? Array(0...23) {
                for minuteCandidate in minuteValue.map({ [$0] }) ?? Array(0...59) {
                    let candidate = dayStart + EpochMilliseconds(hourCandidate * 3600 + minuteCandidate * 60 + secondValue) * 1000
                    if candidate > time { return candidate }
                }
            }
        }
        return nil
    }
}
