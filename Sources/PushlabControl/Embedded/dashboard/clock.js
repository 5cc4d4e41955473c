// The simulated clock in the top bar (GET /v1/clock through /v1/health): real time ticks here
// between reads; a manual clock moves only with the buttons (POST /v1/clock) or a test.
import { post } from "./api.js";
import { dateTime, toast } from "./dom.js";

export class Clock {
  constructor({ time, mode, controls, toggle }, onTime) {
    this.nodes = { time, mode, controls, toggle };
    this.onTime = onTime;
    this.mode = "real";
    this.serverMs = Date.now();
    this.readAt = Date.now();
    for (const button of controls.querySelectorAll("[data-advance]")) {
      button.addEventListener("click", () => this.change({ advance: Number(button.dataset.advance) }));
    }
    toggle.addEventListener("click", () => this.change({ mode: this.mode === "manual" ? "real" : "manual" }));
    setInterval(() => this.tick(), 1000);
  }

  /** The server's time now, as best known here. */
  now() {
    return this.mode === "manual" ? this.serverMs : this.serverMs + (Date.now() - this.readAt);
  }

  /** A clock as the API shows it (`{mode, timeMs}`). */
  set(clock) {
    if (!clock) return;
    this.mode = clock.mode;
    this.serverMs = clock.timeMs;
    this.readAt = Date.now();
    this.tick();
  }

  tick() {
    const { time, mode, toggle } = this.nodes;
    const now = this.now();
    time.textContent = dateTime(now);
    mode.textContent = this.mode === "manual" ? "manual clock" : "real time";
    mode.dataset.mode = this.mode;
    toggle.textContent = this.mode === "manual" ? "Real time" : "Freeze";
    toggle.title = this.mode === "manual" ? "Back to real time: what fell due happens at once" : "Stop the clock here (manual)";
    for (const button of this.nodes.controls.querySelectorAll("[data-advance]")) button.title = "Move the clock on (it is manual afterwards); what falls due on the way happens at its own time";
    this.onTime(now);
  }

  async change(body) {
    try {
      this.set(await post("/v1/clock", body));
    } catch (error) {
      toast(error.message, "error");
    }
  }
}
