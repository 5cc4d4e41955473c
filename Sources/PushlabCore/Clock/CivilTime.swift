/// Calendar arithmetic in a fixed UTC offset, on epoch milliseconds (Gregorian; no Foundation,
/// so firing times are exact and the same on every platform).
public enum CivilTime {
    public struct Fields: Equatable, Sendable {
        public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
        /// 1 = Sunday ... 7 = Saturday.
        public var weekday: Int
    }

    public static func fields(_ time: EpochMilliseconds, utcOffsetSeconds: Int) -> Fields {
        let local = floorDivide(time, 1000) + Int64(utcOffsetSeconds)
        let days = Int(floorDivide(local, 86_400))
        let secondOfDay = Int(local - Int64(days) * 86_400)
        let (year, month, day) = civil(fromDays: days)
        // 1970-01-01 was a Thursday (5).
        let weekday = ((days % 7 + 7) % 7 + 4) % 7 + 1
        return Fields(year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay / 60 % 60, second: secondOfDay % 60, weekday: weekday)
    }

    public static func time(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, utcOffsetSeconds: Int) -> EpochMilliseconds {
        let days = days(fromCivil: year, month, day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(utcOffsetSeconds)
        return seconds * 1000
    }

    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}

