import PushlabSimulator
import Synchronization

/// What `pushlab serve` shows while a large scenario loads ("Generating devices: 350,000 /
/// 1,000,000"): on a terminal one line rewritten in place, cleared before the banner; in a
/// log a line every few seconds. A step done sooner than that shows nothing, so a small
/// scenario's banner comes alone.
final class StartupProgress: Sendable {
    private let terminal: Terminal
    /// How long a step runs before it is shown, and how long between two lines.
    private let firstAfter: Duration
    private let every: Duration
    private let state = Mutex(State())

    private struct State {
        var step: LoadProgress.Step?
        var stepStarted = ContinuousClock.now
        var lastShown: ContinuousClock.Instant?
        /// A rewritable line is on the terminal.
        var lineShown = false
    }

    init(terminal: Terminal) {
        self.terminal = terminal
        firstAfter = terminal.interactive ? .milliseconds(300) : .seconds(2)
        every = terminal.interactive ? .milliseconds(100) : .seconds(2)
    }

    var reporter: LoadProgress {
        LoadProgress { [self] step, done, total in show(step, done: done, of: total) }
    }

    private func show(_ step: LoadProgress.Step, done: Int, of total: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            if state.step != step {
                state.step = step
                state.stepStarted = now
                state.lastShown = nil
            }
            let finished = done == total
            guard now - state.stepStarted >= firstAfter || (finished && state.lastShown != nil) else { return }
            // A step's last count is always shown once it was shown at all.
            guard finished || state.lastShown.map({ now - $0 >= every }) ?? true else { return }
            state.lastShown = now
            let line = "\(step.rawValue): \(Self.grouped(done)) / \(Self.grouped(total))"
            if terminal.interactive {
                terminal.progress(line)
                state.lineShown = true
            } else {
                terminal.write(line)
            }
        }
    }

    /// Clears the line on a terminal, before the banner or an error.
    func finish() {
        state.withLock { state in
            if state.lineShown { terminal.clearProgress() }
            state.lineShown = false
        }
    }

    /// 1000000 as 1,000,000.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return number < 0 ? "-" + text : text
    }
}
