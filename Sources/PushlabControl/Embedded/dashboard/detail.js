// A push, opened from the timeline: the request and APNs's answer, its headers and payload,
// and everything the device did with it, each with the reason in words.
import { clear, clockTime, el, fill, pretty, shortId } from "./dom.js";
import { explanation, summary } from "./explain.js";

export class Detail {
  constructor(root, { related, sent, deviceOf }) {
    this.root = root;
    this.related = related; // apnsId -> buffered events of that push
    this.sent = sent; // apnsId -> what the Send form sent (headers, payload), if it did
    this.deviceOf = deviceOf;
  }

  close() {
    this.root.hidden = true;
    clear(this.root);
  }

  show(event) {
    this.root.hidden = false;
    const apnsId = event.apnsId;
    const events = apnsId ? this.related(apnsId) : [event];
    const request = events.find((e) => e.type === "request");
    const observations = events.filter((e) => e.type === "observation");
    const sent = apnsId ? this.sent(apnsId) : null;
    const device = observations[0]?.data.deviceId || (request && this.deviceOf(request)) || "";
    const title = apnsId ? `Push ${shortId(apnsId)}` : event.type === "observation" ? `${event.data.kind} on ${event.data.deviceId}` : "Event";
    const to = apnsId && device ? ` → ${device}` : "";
    fill(this.root, 
      el("div", { class: "detail-head" },
        el("h3", {}, title, to ? el("span", { class: "muted" }, to) : null),
        el("button", { type: "button", class: "linklike", onclick: () => this.close(), "aria-label": "Close" }, "×")),
      apnsId ? el("p", { class: "mono small", title: "apns-id" }, apnsId) : null,
      request ? this.answer(request) : apnsId ? el("p", { class: "muted" }, "Its APNs request is no longer in the timeline's buffer (or came from a local notification).") : null,
      observations.length ? this.caused(observations) : null,
      this.headers(request, sent, observations),
      this.payload(sent, observations),
      !apnsId ? el("pre", { class: "json" }, pretty(event.data)) : null);
  }

  answer(request) {
    const r = request.data;
    return el("section", {},
      el("h4", {}, "APNs answered"),
      el("p", {}, el("span", { class: `badge-kind ${r.status === 200 ? "ok" : "bad"}` }, String(r.status)), " ", r.reason || "accepted",
        el("span", { class: "muted" }, ` · ${clockTime(r.timeMs)} · connection ${r.connectionId} · ${r.environment}`)),
      el("p", { class: "why" }, explanation(request)));
  }

  /** The headers: all of them for a push this page sent; otherwise what the log and the device recorded. */
  headers(request, sent, observations) {
    let rows;
    if (sent) {
      rows = Object.entries(sent.headers).map(([name, value]) => [name, name === "authorization" ? `${value.slice(0, 24)}…` : value]);
      rows.unshift([":path", new URL(sent.url).pathname]);
    } else {
      rows = [];
      const r = request?.data;
      const delivered = observations.find((o) => o.data.kind === "delivered")?.data;
      const entry = observations.find((o) => o.data.kind === "notificationCenter" && o.data.change === "added")?.data;
      if (r?.deviceToken) rows.push([":path", `/3/device/${r.deviceToken}`]);
      if (r?.topic) rows.push(["apns-topic", r.topic]);
      if (r?.pushType || delivered?.pushType) rows.push(["apns-push-type", r?.pushType || delivered.pushType]);
      if (delivered?.priority) rows.push(["apns-priority", String(delivered.priority)]);
      if (entry?.collapseId) rows.push(["apns-collapse-id", entry.collapseId]);
      if (r?.apnsId) rows.push(["apns-id", r.apnsId]);
    }
    if (rows.length === 0) return null;
    return el("section", {},
      el("h4", {}, "Headers", sent ? null : el("span", { class: "muted" }, " (as recorded)")),
      el("table", { class: "kv" }, rows.map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", { class: "mono" }, value)))));
  }

  /** The payload: as sent from this page, or as the app received it. */
  payload(sent, observations) {
    let text = sent?.payload;
    let source = "";
    if (text === undefined) {
      const entry = observations.find((o) => o.data.kind === "notificationCenter" && o.data.content?.userInfo)?.data;
      const callback = observations.find((o) => o.data.kind === "callback" && o.data.userInfo)?.data;
      const userInfo = callback?.userInfo || entry?.content?.userInfo;
      if (userInfo) {
        text = JSON.stringify(userInfo);
        source = " (as the app received it)";
      }
    }
    if (text === undefined) return null;
    return el("section", {}, el("h4", {}, "Payload", el("span", { class: "muted" }, source)), el("pre", { class: "json" }, pretty(text)));
  }

  caused(observations) {
    return el("section", {},
      el("h4", {}, "What the device did"),
      el("ol", { class: "caused" }, observations.map((o) => {
        const why = explanation(o);
        return el("li", { "data-kind": o.data.kind },
          el("span", { class: "t" }, clockTime(o.time)), " ",
          el("span", { class: `badge-kind k-${o.data.kind}` }, o.data.kind === "notificationCenter" ? "NC" : o.data.kind), " ",
          el("span", {}, `${o.data.deviceId}: ${summary(o)}`),
          why ? el("div", { class: "why" }, why) : null);
      })));
  }
}
