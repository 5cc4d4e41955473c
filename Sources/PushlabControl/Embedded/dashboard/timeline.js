// The live timeline: every APNs request and every observation, newest first. Built for 5,000
// events a second: events wait in a queue, a frame (requestAnimationFrame) takes them in one
// batch, the buffer keeps the newest MAX_EVENTS, and only the rows in view exist in the page.
import { clear, clockTime, el, fill, shortToken } from "./dom.js";
import { OBSERVATION_KINDS, OBSERVATION_REASONS, APNS_REASONS, summary } from "./explain.js";

const MAX_EVENTS = 20000;
const ROW_HEIGHT = 24;
const OVERSCAN = 10;

/** The bundle id of a topic: its push type suffix taken off. */
const SUFFIXES = [".push-type.liveactivity", ".push-type.controls", ".push-type.widgets", ".pushkit.fileprovider", ".location-query", ".complication", ".voip-ptt", ".voip"];
export function bundleOfTopic(topic) {
  if (!topic) return "";
  const suffix = SUFFIXES.find((s) => topic.endsWith(s) && topic.length > s.length);
  return suffix ? topic.slice(0, -suffix.length) : topic;
}

export class Timeline {
  constructor(nodes, hooks) {
    this.nodes = nodes; // scroll, spacer, rows, count, pause, clear, device, app, kind, reason, deviceOptions, reasonOptions
    this.hooks = hooks; // select(event), deviceOfToken(token), deviceChosen(id)
    this.all = [];
    this.filtered = [];
    this.queue = [];
    this.n = 0;
    this.seen = new Set();
    this.paused = false;
    this.dirty = true;
    this.selected = null;
    this.filter = { device: "", app: "", kind: "", reason: "" };
    this.arrivals = [];
    this.setUpFilters();
    nodes.scroll.addEventListener("scroll", () => { this.dirty = true; });
    nodes.pause.addEventListener("click", () => this.setPaused(!this.paused));
    nodes.clear.addEventListener("click", () => {
      this.all = [];
      this.filtered = [];
      this.seen.clear();
      this.dirty = true;
    });
    const frame = () => {
      this.take();
      if (this.dirty) this.render();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  setUpFilters() {
    const { device, app, kind, reason, reasonOptions } = this.nodes;
    fill(kind,
      el("option", { value: "" }, "every kind"),
      el("option", { value: "request" }, "APNs requests"),
      el("option", { value: "refused" }, "refused requests"),
      OBSERVATION_KINDS.map((k) => el("option", { value: k }, k)));
    fill(reasonOptions, [...Object.keys(APNS_REASONS), ...OBSERVATION_REASONS].map((r) => el("option", { value: r })));
    const changed = () => {
      this.filter = { device: device.value.trim(), app: app.value.trim().toLowerCase(), kind: kind.value, reason: reason.value.trim().toLowerCase() };
      if (this.filter.device) this.hooks.deviceChosen(this.filter.device);
      this.refilter();
    };
    for (const input of [device, app, reason]) input.addEventListener("input", changed);
    kind.addEventListener("change", changed);
  }

  /** Shows one device's events (a phone's "Timeline" link). */
  showDevice(id) {
    this.nodes.device.value = id;
    this.nodes.device.dispatchEvent(new Event("input"));
  }

  setPaused(paused) {
    this.paused = paused;
    this.nodes.pause.textContent = paused ? "Resume" : "Pause";
    this.nodes.pause.setAttribute("aria-pressed", String(paused));
    this.dirty = true;
  }

  /** An event from the stream (`live`), or from the history read at start. */
  add(type, data, live = true) {
    this.queue.push({ type, data, live });
    // A page that cannot keep up keeps the newest: the buffer would drop the rest anyway.
    if (this.queue.length > MAX_EVENTS * 2) this.queue.splice(0, this.queue.length - MAX_EVENTS);
  }

  /** Called by the frame: the queued events into the buffer, in one batch. */
  take() {
    if (this.paused || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    const now = performance.now();
    this.arrivals.push([now, batch.length]);
    let added = 0;
    for (const { type, data, live } of batch) {
      const key = eventKey(type, data);
      if (key && this.seen.has(key)) continue;
      if (key) this.seen.add(key);
      const event = {
        n: ++this.n, type, data, key, live,
        // A `dropped` notice has no time of its own: it sits at the time of the events around it.
        time: data.timeMs ?? this.all[this.all.length - 1]?.time ?? 0,
        kind: type === "observation" ? data.kind : type,
        reason: data.reason || "",
        apnsId: type === "observation" ? data.notificationId : data.apnsId,
        app: type === "observation" ? data.bundleId : bundleOfTopic(data.topic),
      };
      this.all.push(event);
      if (this.matches(event)) {
        this.filtered.push(event);
        added += 1;
      }
      this.hooks.arrived(event);
    }
    this.trim();
    // Reading older rows: keep them where they are while newer ones arrive above.
    if (added && this.nodes.scroll.scrollTop > 0) this.nodes.scroll.scrollTop += added * ROW_HEIGHT;
    this.dirty = true;
  }

  trim() {
    if (this.all.length <= MAX_EVENTS) return;
    const dropped = this.all.splice(0, this.all.length - MAX_EVENTS);
    for (const event of dropped) if (event.key) this.seen.delete(event.key);
    const oldest = this.all[0].n;
    let cut = 0;
    while (cut < this.filtered.length && this.filtered[cut].n < oldest) cut += 1;
    if (cut) this.filtered.splice(0, cut);
  }

  deviceOf(event) {
    if (event.type === "observation") return event.data.deviceId;
    if (event.type === "request") return this.hooks.deviceOfToken(event.data.deviceToken) || "";
    return "";
  }

  matches(event) {
    const f = this.filter;
    if (event.type === "dropped") return true;
    if (f.device && this.deviceOf(event) !== f.device) return false;
    if (f.app && !(event.app || "").toLowerCase().includes(f.app)) return false;
    if (f.kind) {
      if (f.kind === "refused") {
        if (event.type !== "request" || event.data.status === 200) return false;
      } else if (event.kind !== f.kind) return false;
    }
    if (f.reason && !event.reason.toLowerCase().includes(f.reason)) return false;
    return true;
  }

  refilter() {
    this.filtered = this.all.filter((e) => this.matches(e));
    this.nodes.scroll.scrollTop = 0;
    this.dirty = true;
  }

  /** The buffered events of one push (its request and everything the device did with it). */
  related(apnsId) {
    if (!apnsId) return [];
    const wanted = apnsId.toLowerCase();
    return this.all.filter((e) => e.apnsId && e.apnsId.toLowerCase() === wanted);
  }

  perSecond() {
    const now = performance.now();
    this.arrivals = this.arrivals.filter(([t]) => now - t < 5000);
    return Math.round(this.arrivals.reduce((sum, [, count]) => sum + count, 0) / 5);
  }

  render() {
    this.dirty = false;
    const { scroll, spacer, rows, count } = this.nodes;
    const total = this.filtered.length;
    spacer.style.height = `${total * ROW_HEIGHT}px`;
    const first = Math.max(0, Math.floor(scroll.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const visible = Math.ceil(scroll.clientHeight / ROW_HEIGHT) + OVERSCAN * 2;
    const last = Math.min(total, first + visible);
    rows.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    clear(rows);
    for (let i = first; i < last; i += 1) rows.append(this.row(this.filtered[total - 1 - i]));
    const waiting = this.paused && this.queue.length ? ` · paused, ${this.queue.length.toLocaleString("en")} waiting` : "";
    const shown = total === this.all.length ? `${total.toLocaleString("en")} events` : `${total.toLocaleString("en")} of ${this.all.length.toLocaleString("en")} events`;
    count.textContent = `${shown}${this.all.length >= MAX_EVENTS ? ` (newest ${MAX_EVENTS.toLocaleString("en")} kept)` : ""}${waiting}`;
  }

  row(event) {
    const device = this.deviceOf(event);
    let badge;
    if (event.type === "request") {
      badge = el("span", { class: `badge-kind ${event.data.status === 200 ? "ok" : "bad"}` }, String(event.data.status));
    } else if (event.type === "dropped") {
      badge = el("span", { class: "badge-kind bad" }, "dropped");
    } else {
      badge = el("span", { class: `badge-kind k-${event.kind}` }, event.kind === "notificationCenter" ? "NC" : event.kind);
    }
    return el("div", {
      class: `row${this.selected === event.n ? " selected" : ""}${event.type === "request" ? " request" : ""}`,
      "data-kind": event.kind, "data-n": event.n, role: "button", tabindex: "-1",
      onclick: () => {
        this.selected = event.n;
        this.dirty = true;
        this.hooks.select(event);
      },
    },
    el("span", { class: "t" }, clockTime(event.time)),
    badge,
    el("span", { class: "d", title: device || event.data.deviceToken || "" }, device || shortToken(event.data.deviceToken) || ""),
    el("span", { class: "a", title: event.app || "" }, event.app || ""),
    el("span", { class: "s", title: summary(event) }, summary(event)));
  }
}

/** Events read twice (the history at start and the live stream) are kept once. */
function eventKey(type, data) {
  if (type === "observation") return `o${data.sequence}`;
  if (type === "request") return `r${data.apnsId}|${data.connectionId}|${data.timeMs}|${data.status}`;
  return null;
}
