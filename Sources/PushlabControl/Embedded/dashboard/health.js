// The Health tab: requests per second, answers by status and reason, answer-time percentiles,
// connections, the delivery queue and the store's backlog (GET /v1/health and GET /metrics),
// the fault rules in force (GET /v1/faults), with a button to clear them, and on a cluster
// node every node's share of the phones and its state (GET /v1/health's cluster members).
import { del, get, metricsText, seg } from "./api.js";
import { el, fill, shortToken, toast } from "./dom.js";
import { bucketDelta, duration, healthNumbers, parseMetrics, quantile } from "./prometheus.js";

const HISTORY = 60;
const WINDOW_MS = 10000;

export class Health {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks; // rate(reqPerSecond)
    this.scrapes = [];
    this.rates = [];
    this.build();
  }

  build() {
    this.cards = {};
    const card = (key, label, hint) => {
      const value = el("div", { class: "card-value", "data-metric": key }, "–");
      this.cards[key] = value;
      return el("div", { class: "card", title: hint }, el("div", { class: "card-label" }, label), value);
    };
    this.spark = el("canvas", { class: "spark", width: 360, height: 56, "aria-label": "Requests per second, last two minutes" });
    this.answers = el("tbody");
    this.faults = el("div", { class: "faults", id: "fault-list" });
    this.listeners = el("div", { class: "listeners muted small" });
    this.nodes = el("tbody");
    this.cluster = el("section", { id: "cluster-nodes", hidden: true },
      el("h3", {}, "Cluster nodes"),
      el("table", { class: "answers" },
        el("thead", {}, el("tr", {}, ...["node", "control API", "phones", "partitions", "connections"]
          .map((label, i) => el("th", i > 1 ? { class: "num" } : {}, label)))),
        this.nodes));
    fill(this.root, 
      el("div", { class: "cards" },
        card("rate", "Requests / s", "APNs requests answered per second (last 10 s)"),
        card("accepted", "Accepted / s", "Pushes answered 200 per second (last 10 s)"),
        card("p50", "Answer p50", "Median time the APNs rules took to answer (last 10 s, or since start)"),
        card("p99", "Answer p99", "99th percentile answer time; p90 in the tooltip"),
        card("connections", "Connections", "APNs connections open now (opened since start)"),
        card("queue", "Delivery queue", "Accepted pushes the phones have not observed yet"),
        card("backlog", "Store backlog", "Observations and requests not yet committed to the store"),
        card("clients", "Event clients", "Pages and scripts reading /v1/events (events dropped for slow ones)")),
      this.spark,
      el("h3", {}, "Answers by status and reason"),
      el("table", { class: "answers" }, el("thead", {}, el("tr", {}, el("th", {}, "status"), el("th", {}, "reason"), el("th", { class: "num" }, "count"))), this.answers),
      el("div", { class: "faults-head" }, el("h3", {}, "Fault rules"),
        el("button", { type: "button", id: "faults-clear", onclick: () => this.clearFaults() }, "Clear all")),
      this.faults,
      this.cluster,
      el("h3", {}, "Listeners"),
      this.listeners);
  }

  async refresh(health) {
    let text;
    try {
      text = await metricsText();
    } catch {
      return;
    }
    const numbers = healthNumbers(parseMetrics(text));
    const now = performance.now();
    this.scrapes.push({ at: now, ...numbers });
    while (this.scrapes.length > 2 && now - this.scrapes[1].at >= WINDOW_MS) this.scrapes.shift();
    const first = this.scrapes[0];
    const seconds = Math.max(0.001, (now - first.at) / 1000);
    const rate = this.scrapes.length > 1 ? (numbers.requests - first.requests) / seconds : 0;
    const accepted = this.scrapes.length > 1 ? (numbers.accepted - first.accepted) / seconds : 0;
    this.rates.push(rate);
    if (this.rates.length > HISTORY) this.rates.shift();
    this.hooks.rate(rate);

    const recent = bucketDelta(numbers.buckets, this.scrapes.length > 1 ? first.buckets : null);
    const buckets = recent.length && recent[recent.length - 1].count > 0 ? recent : numbers.buckets;
    const c = this.cards;
    c.rate.textContent = formatRate(rate);
    c.accepted.textContent = formatRate(accepted);
    c.p50.textContent = duration(quantile(buckets, 0.5));
    c.p99.textContent = duration(quantile(buckets, 0.99));
    c.p99.parentElement.title = `p90 ${duration(quantile(buckets, 0.9))}; 99th percentile answer time`;
    c.connections.textContent = `${numbers.openConnections} (${numbers.connections.toLocaleString("en")})`;
    if (health) {
      c.queue.textContent = (health.queuedDeliveries ?? 0).toLocaleString("en");
      c.backlog.textContent = health.storeBacklog === undefined ? "no store" : health.storeBacklog.toLocaleString("en");
      c.clients.textContent = `${health.eventClients}${numbers.eventsDropped ? ` (${numbers.eventsDropped.toLocaleString("en")} dropped)` : ""}`;
      fill(this.listeners, ...(health.listeners || []).map((l) => el("div", {}, `${l.environment} ${l.role}: ${l.url}`)));
      this.renderCluster(health.cluster);
    }
    this.renderAnswers(numbers.byAnswer);
    this.drawSpark();
    await this.refreshFaults();
  }

  /** Every node of the cluster, this one marked; nothing outside a cluster. */
  renderCluster(cluster) {
    this.cluster.hidden = !cluster;
    if (!cluster) return;
    const members = cluster.members || [];
    const missing = cluster.nodes.filter((node) => !members.some((m) => m.node === node));
    fill(this.nodes,
      ...members.map((m) => el("tr", { "data-node": m.node, class: m.node === cluster.node ? "this-node" : "" },
        el("td", { class: "nowrap" }, m.node === cluster.node ? `${m.node} (this one)` : m.node),
        el("td", {}, m.controlApi || "–"),
        el("td", { class: "num" }, (m.simulatedDevices ?? 0).toLocaleString("en")),
        el("td", { class: "num nowrap" }, `${(m.ownedPartitions || []).length} of ${cluster.partitions}`),
        el("td", { class: "num" }, (m.apnsConnections ?? 0).toLocaleString("en")))),
      ...missing.map((node) => el("tr", { "data-node": node }, el("td", { class: "nowrap" }, node), el("td", { colspan: 4, class: "muted" }, "did not answer"))));
  }

  renderAnswers(byAnswer) {
    const rows = [...byAnswer.entries()].sort((a, b) => b[1] - a[1]);
    fill(this.answers, ...(rows.length ? rows.map(([key, count]) => {
      const [status, reason] = key.split("|");
      return el("tr", {}, el("td", {}, el("span", { class: `badge-kind ${status === "200" ? "ok" : "bad"}` }, status)), el("td", {}, reason || "accepted"), el("td", { class: "num" }, count.toLocaleString("en")));
    }) : [el("tr", {}, el("td", { colspan: 3, class: "muted" }, "No requests yet"))]));
  }

  drawSpark() {
    const canvas = this.spark;
    const context = canvas.getContext("2d");
    const { width, height } = canvas;
    context.clearRect(0, 0, width, height);
    const top = Math.max(1, ...this.rates);
    context.strokeStyle = "#0a84ff";
    context.fillStyle = "rgba(10,132,255,0.12)";
    context.lineWidth = 2;
    context.beginPath();
    // Newest at the right edge, older ones to its left: a live chart from the first reading.
    const step = width / (HISTORY - 1);
    const x0 = width - (this.rates.length - 1) * step;
    this.rates.forEach((rate, i) => {
      const x = x0 + i * step;
      const y = height - 4 - (rate / top) * (height - 10);
      if (i === 0) context.moveTo(x, y);
      else context.lineTo(x, y);
    });
    context.stroke();
    if (this.rates.length > 1) {
      context.lineTo(width, height);
      context.lineTo(x0, height);
      context.fill();
    }
    context.fillStyle = "#8e8e93";
    context.font = "10px system-ui, sans-serif";
    context.fillText(`${formatRate(top)} req/s`, 4, 11);
  }

  async refreshFaults() {
    let rules;
    try {
      rules = (await get("/v1/faults")).faults;
    } catch {
      return;
    }
    fill(this.faults, ...(rules.length ? rules.map((rule) => el("div", { class: "fault", "data-fault": rule.id },
      el("span", {}, el("strong", {}, rule.id), " ", describeFault(rule)),
      el("button", { type: "button", class: "linklike", onclick: () => this.removeFault(rule.id) }, "Remove"))) : [el("p", { class: "muted" }, "None: APNs answers by its rules alone.")]));
    document.getElementById("faults-clear").disabled = rules.length === 0;
  }

  async removeFault(id) {
    try {
      await del(`/v1/faults/${seg(id)}`);
    } catch (error) {
      toast(error.message, "error");
    }
    await this.refreshFaults();
  }

  async clearFaults() {
    try {
      const result = await del("/v1/faults");
      toast(`Removed ${result.removed} fault rule(s)`);
    } catch (error) {
      toast(error.message, "error");
    }
    await this.refreshFaults();
  }
}

function formatRate(rate) {
  return rate >= 100 ? Math.round(rate).toLocaleString("en") : rate.toFixed(1);
}

/** A fault rule in words: what it does, to which requests, how often so far. */
export function describeFault(rule) {
  const action = rule.respond ? `answers ${rule.respond.status} ${rule.respond.reason}`
    : rule.delayMs !== undefined ? `delays answers ${rule.delayMs} ms`
    : rule.goAway ? `sends GOAWAY ${rule.goAway}`
    : rule.resetStream ? "resets the stream"
    : rule.closeConnection ? "closes the connection" : "acts";
  const which = [rule.deviceToken && `token ${shortToken(rule.deviceToken)}`, rule.topic && `topic ${rule.topic}`, rule.everyNth && `every ${rule.everyNth}th`, rule.probability !== undefined && `p ${rule.probability}`].filter(Boolean);
  const count = rule.remaining !== undefined ? `, ${rule.remaining} left` : "";
  return `${action}${which.length ? ` to ${which.join(", ")}` : " to every request"}: fired ${rule.fired} of ${rule.matched}${count}`;
}
