// The Report tab: what each provider did, and what of it Apple warns against (GET /v1/report),
// read once a second while the tab is on screen. Start/Stop recording is PUT /v1/report
// {"recording": …}; Clear is DELETE /v1/report. The server records only once asked.
import { api, del, get } from "./api.js";
import { clockTime, dateTime, el, fill, plural, toast } from "./dom.js";
import { APNS_REASONS } from "./explain.js";
import { duration } from "./prometheus.js";

const POLL_MS = 1000;

/** The kinds of retry, as the report counts them, in words. */
const RETRIES = [
  ["afterSuccess", "after a 200"],
  ["afterRefusal", "after a refusal"],
  ["afterAuthenticationFailure", "after an authentication failure"],
  ["after410", "after a 410"],
  ["after429", "after a 429"],
  ["afterServerError", "after a 5xx"],
];

export class Report {
  constructor(root) {
    this.root = root;
    this.shown = false;
    this.timer = null;
    this.sequence = 0;
    this.busy = false;
    this.recording = null;
    this.drawn = null;
    this.build();
    document.addEventListener("visibilitychange", () => this.schedule());
  }

  build() {
    this.state = el("span", { class: "chip", id: "report-state" }, "–");
    this.toggle = el("button", { type: "button", id: "report-toggle", disabled: true, onclick: () => this.setRecording(!this.recording) }, "Start recording");
    this.clearButton = el("button", { type: "button", id: "report-clear", disabled: true, title: "Forget what was recorded (recording goes on if it is on)", onclick: () => this.clear() }, "Clear");
    this.summary = el("p", { class: "muted small report-summary", id: "report-summary" });
    this.body = el("div", { class: "report-body", id: "report-body" });
    fill(this.root,
      el("div", { class: "report-head" },
        el("h3", {}, "Provider report"), this.state,
        el("span", { class: "report-actions" }, this.toggle, this.clearButton)),
      this.summary,
      this.body);
  }

  /** The tab came on screen (true) or left it: the report is read only while it is shown. */
  show(visible) {
    this.shown = visible;
    this.schedule();
  }

  schedule() {
    const active = this.shown && !document.hidden;
    if (active && !this.timer) {
      this.timer = setInterval(() => this.refresh(), POLL_MS);
      this.refresh();
    } else if (!active && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  async refresh() {
    if (this.busy) return; // a slow answer: skip a beat rather than pile requests up
    this.busy = true;
    const asked = ++this.sequence;
    try {
      const report = await get("/v1/report");
      if (asked === this.sequence) this.render(report);
    } catch (error) {
      if (asked === this.sequence) this.unavailable(error.message);
    } finally {
      this.busy = false;
    }
  }

  async setRecording(recording) {
    const asked = ++this.sequence;
    try {
      const report = await api("PUT", "/v1/report", { recording });
      if (asked === this.sequence) this.render(report);
      toast(recording ? "Recording the provider report" : "Stopped recording (what was recorded stays)");
    } catch (error) {
      toast(error.message, "error");
    }
  }

  async clear() {
    const asked = ++this.sequence;
    try {
      const report = await del("/v1/report");
      if (asked === this.sequence) this.render(report);
      toast("Cleared the provider report");
    } catch (error) {
      toast(error.message, "error");
    }
  }

  /** No report to read: a server that keeps none (409), or no answer. */
  unavailable(message) {
    this.recording = null;
    this.state.textContent = "unavailable";
    this.state.className = "chip warn";
    this.toggle.disabled = true;
    this.clearButton.disabled = true;
    this.summary.textContent = "";
    this.drawn = null;
    fill(this.body, el("p", { class: "muted", id: "report-empty" }, message));
  }

  render(report) {
    this.recording = report.recording;
    this.state.textContent = report.recording ? "recording" : "not recording";
    this.state.className = `chip ${report.recording ? "ok" : "warn"}`;
    this.state.dataset.recording = String(report.recording);
    this.toggle.textContent = report.recording ? "Stop recording" : "Start recording";
    this.toggle.disabled = false;
    this.clearButton.disabled = false;
    const providers = report.providers || [];
    const requests = providers.reduce((total, p) => total + (p.requests || 0), 0);
    this.summary.textContent = [
      report.sinceMs !== undefined ? `Since ${dateTime(report.sinceMs)}` : "Nothing recorded",
      providers.length ? `${plural(requests, "request")} from ${plural(providers.length, "provider")}` : null,
      report.generatedAtMs !== undefined ? `as of ${clockTime(report.generatedAtMs)}` : null,
    ].filter(Boolean).join(" · ");

    // Redrawn only when something changed (not for the time of the answer alone), so a
    // selection or a scroll position survives the next second.
    const { generatedAt, generatedAtMs, ...content } = report;
    const key = JSON.stringify(content);
    if (key === this.drawn) return;
    this.drawn = key;
    if (!providers.length) {
      fill(this.body, this.empty(report));
      return;
    }
    const findings = providers.flatMap((p) => (p.findings || []).map((f) => ({ provider: p.id, ...f })));
    fill(this.body,
      el("section", { class: "report-findings", id: "report-findings" },
        el("h3", {}, findings.length ? `Findings (${findings.length})` : "Findings"),
        findings.length
          ? findings.map((f) => finding(f, providers.length > 1))
          : el("p", { class: "report-clean" }, "None: nothing these providers did is something Apple warns against.")),
      providers.map(provider),
      connections(report));
  }

  empty(report) {
    if (report.recording) {
      return el("div", { class: "report-empty", id: "report-empty" },
        el("p", {}, el("strong", {}, "Recording. "), "No requests yet."),
        el("p", { class: "muted" }, "Send pushes to this server's APNs ports with your provider: each provider (signing key or client certificate) shows up here within a second, with its rate, connections, answers and findings."));
    }
    return el("div", { class: "report-empty", id: "report-empty" },
      el("p", {}, el("strong", {}, "Not recording. "), "The provider report follows what each provider does: its rate, in-flight requests, connections, latency, answers and retries, and what of it Apple warns against."),
      el("p", {}, "Start it with ", el("strong", {}, "Start recording"), " above, or with any of:"),
      el("ul", { class: "report-how" },
        el("li", {}, el("code", {}, "pushlab serve --report"), " (or ", el("code", {}, "report: true"), " in the serve configuration file)"),
        el("li", {}, el("code", {}, "pushlab report --start")),
        el("li", {}, el("code", {}, "PUT /v1/report {\"recording\":true}"))),
      el("p", { class: "muted" }, "Then send pushes as your provider does; this tab updates once a second."));
  }
}

/** A finding: what the provider did, how often, Apple's rule, where Apple says it, examples. */
function finding(f, nameProvider) {
  const unit = f.count === 1 && f.unit.endsWith("s") ? f.unit.slice(0, -1) : f.unit;
  const source = /^https?:\/\//.test(f.source || "")
    ? el("a", { href: f.source, target: "_blank", rel: "noopener noreferrer", class: "report-source" }, sourceName(f.source))
    : f.source ? el("span", { class: "report-source" }, f.source) : null;
  return el("article", { class: "report-finding", "data-finding": f.id, "data-provider": f.provider },
    el("div", { class: "report-finding-head" },
      el("strong", { class: "report-finding-title" }, f.title),
      el("span", { class: "chip bad", "data-count": f.count }, `${f.count.toLocaleString("en")} ${unit}`)),
    el("div", { class: "muted small" }, el("code", {}, f.id), nameProvider ? ` · ${f.provider}` : null),
    el("p", { class: "report-rule" }, f.rule),
    source ? el("div", { class: "small" }, "Source: ", source) : null,
    (f.examples || []).length
      ? el("ul", { class: "report-examples" }, f.examples.map((example) => el("li", {}, example)))
      : null);
}

function sourceName(url) {
  try {
    const u = new URL(url);
    return u.hostname === "developer.apple.com" ? `Apple: ${u.pathname.split("/").filter(Boolean).pop()}` : `${u.hostname}${u.pathname}${u.hash}`;
  } catch {
    return url;
  }
}

/** One provider in a few lines: each a label and its figures. */
function provider(p) {
  const c = p.concurrency || {};
  const conn = p.connections || {};
  const lat = p.latencyMs || {};
  const retries = p.retries || {};
  const tokens = p.providerTokens || {};
  const throttled = p.tooManyRequests || {};
  const findings = (p.findings || []).length;
  const atLimit = c.streamLimit !== undefined && c.peak >= c.streamLimit;
  const rows = [
    ["requests", "Requests", [count(p.requests), p.firstRequestMs !== undefined ? muted(` ${clockTime(p.firstRequestMs)} → ${clockTime(p.lastRequestMs)}`) : null]],
    ["rate", "Rate", `${number(p.rate?.mean)}/s mean · ${number(p.rate?.peak)}/s peak`],
    ["concurrency", "In flight", [`${number(c.mean)} mean · `, el("span", { class: atLimit ? "report-bad" : "" }, `${number(c.peak)} peak`),
      c.streamLimit !== undefined ? ` of ${number(c.streamLimit)} streams` : null]],
    ["connections", "Connections", [`${count(conn.opened)} opened · ${count(conn.open)} open`,
      conn.requestsPerConnection ? muted(` · requests each ${triple(conn.requestsPerConnection, number)} (min/median/max)`) : null]],
    conn.lifetimeMs ? ["lifetimes", "Lifetimes", [triple(conn.lifetimeMs, span), muted(" (min/median/max)")]] : null,
    ["latency", "Latency", lat.count
      ? [`p50 ${ms(lat.p50)} · p90 ${ms(lat.p90)} · p99 ${ms(lat.p99)} · max ${ms(lat.max)}`, muted(` (${plural(lat.count, "answer")})`)]
      : muted("no answers yet")],
    ["answers", "Answers", answers(p.statuses, p.reasons)],
    ["retries", "Retries", retries.total
      ? [count(retries.total), muted(` (${RETRIES.filter(([key]) => retries[key]).map(([key, words]) => `${retries[key].toLocaleString("en")} ${words}`).join(", ")})`)]
      : muted("none")],
    ["after410", "After 410", p.pushesAfter410 ? el("span", { class: "report-bad" }, `${plural(p.pushesAfter410, "push", "pushes")} to tokens already answered 410`) : muted("none")],
    ["tokens", "Provider tokens", p.kind === "key"
      ? [`${count(tokens.distinct)} distinct`,
        tokens.issuedTooSoon ? el("span", { class: "report-bad" }, ` · ${count(tokens.issuedTooSoon)} signed within 20 min of the last`) : null,
        tokens.shortestIntervalMs !== undefined ? muted(` · shortest gap ${span(tokens.shortestIntervalMs)}`) : null]
      : muted(p.kind === "certificate" ? "none (certificate)" : "none")],
    ["throttled", "429s", throttled.answers
      ? [`${count(throttled.answers)} answered`, muted(` · ${count(throttled.pushesTooSoon)} pushes within a second after · ${plural(throttled.fasterSeconds || 0, "second")} sped up after`)]
      : muted("none")],
  ].filter(Boolean);
  return el("section", { class: "report-provider", "data-provider": p.id },
    el("div", { class: "report-provider-head" },
      el("h3", {}, p.id),
      p.teamId ? el("span", { class: "muted small" }, `team ${p.teamId}`) : null,
      el("span", { class: `chip ${findings ? "bad" : "ok"}` }, findings ? plural(findings, "finding") : "no findings")),
    p.certificateSubject ? el("div", { class: "muted small mono report-subject" }, p.certificateSubject) : null,
    el("table", { class: "kv report-kv" },
      el("tbody", {}, rows.map(([key, label, value]) => el("tr", { "data-stat": key }, el("th", {}, label), el("td", {}, value))))));
}

/** Answers by status (a badge each) and by reason (with what the reason means). */
function answers(statuses = {}, reasons = {}) {
  const byStatus = Object.entries(statuses);
  if (!byStatus.length) return muted("none yet");
  return [
    byStatus.map(([status, n]) => el("span", { class: "report-answer" },
      el("span", { class: `badge-kind ${status === "200" ? "ok" : "bad"}` }, status), ` ${n.toLocaleString("en")}`)),
    Object.entries(reasons).map(([reason, n]) => el("span", { class: "report-answer", title: APNS_REASONS[reason] || "" },
      `${n.toLocaleString("en")} × ${reason}`)),
  ];
}

/** The connections the report follows, open ones first. */
function connections(report) {
  const list = report.connections || [];
  if (!list.length) return null;
  const followed = report.connectionsFollowed ?? list.length;
  return el("section", { class: "report-connections" },
    el("h3", {}, `Connections `, el("span", { class: "muted" }, list.length < followed ? `(newest ${list.length} of ${followed.toLocaleString("en")}, open first)` : "(open first)")),
    el("table", { class: "answers", id: "report-connections" },
      el("thead", {}, el("tr", {}, ["id", "provider", "env", "requests", "peak in flight", "lifetime", "ended"]
        .map((label, i) => el("th", { class: i >= 3 && i <= 5 ? "num" : "" }, label)))),
      el("tbody", {}, list.map(connectionRow))));
}

function connectionRow(c) {
  const statuses = Object.entries(c.statuses || {}).map(([status, n]) => `${n} × ${status}`).join(", ");
  return el("tr", { "data-connection": c.id, "data-open": String(c.closedAtMs === undefined) },
    el("td", {}, String(c.id)),
    el("td", {}, el("span", { class: "report-ellipsis", title: c.provider }, c.provider)),
    el("td", {}, c.environment === "production" ? "prod" : c.environment === "development" ? "dev" : c.environment),
    el("td", { class: "num", title: statuses }, count(c.requests)),
    el("td", { class: `num${c.streamLimitExceeded ? " report-bad" : ""}` }, `${count(c.peakInFlight)} / ${count(c.streamLimit)}`),
    el("td", { class: "num", title: c.openedAtMs !== undefined ? `opened ${clockTime(c.openedAtMs)}${c.closedAtMs !== undefined ? `, closed ${clockTime(c.closedAtMs)}` : ""}` : "" }, span(c.lifetimeMs)),
    el("td", { class: "report-ended" }, ended(c)));
}

/** How a connection ended: open, closed, or GOAWAY with its reason. */
function ended(c) {
  const over = c.streamLimitExceeded ? el("span", { class: "report-bad" }, ` · ${c.streamLimitExceeded} over the limit`) : null;
  if (c.closedAtMs === undefined) return [el("span", { class: "chip ok" }, "open"), over];
  const how = c.goAway
    ? el("span", { class: c.closedForErrors ? "report-bad" : "report-warn", title: APNS_REASONS[c.goAway] || "" },
      `GOAWAY ${c.goAway}`, c.closedForErrors ? " (too many errors)" : "")
    : c.closedForErrors ? el("span", { class: "report-bad" }, "closed for errors") : "closed";
  return [how, over];
}

const muted = (text) => el("span", { class: "muted" }, text);

function count(n) {
  return n === undefined || n === null ? "–" : n.toLocaleString("en");
}

function number(n) {
  return n === undefined || n === null ? "–" : n.toLocaleString("en", { maximumFractionDigits: n >= 10 ? 1 : 2 });
}

/** Milliseconds of latency, in words (`5 µs`, `2.10 ms`). */
function ms(n) {
  return n === undefined || n === null ? "–" : duration(n / 1000);
}

/** A span of time in milliseconds: `850 ms`, `12.3 s`, `4.5 min`, `2.0 h` (as `pushlab report` prints it). */
function span(n) {
  if (n === undefined || n === null) return "–";
  if (n < 1000) return `${Math.round(n)} ms`;
  if (n < 60000) return `${(n / 1000).toFixed(1)} s`;
  if (n < 3600000) return `${(n / 60000).toFixed(1)} min`;
  return `${(n / 3600000).toFixed(1)} h`;
}

function triple(summary, format) {
  return `${format(summary.min)}/${format(summary.median)}/${format(summary.max)}`;
}
