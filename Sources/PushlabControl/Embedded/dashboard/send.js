// The Send form, like Knuff's: a device and app (or a pasted token), the apns-* headers, a
// payload from a template, sent with POST /v1/send, which pushes over HTTP/2 to this server's
// APNs listener with Pushlab's own client. APNs's answer is shown as it came, with the curl
// command that sends the same request.
import { get, post, seg } from "./api.js";
import { clear, el, fill, pretty, shortToken, toast } from "./dom.js";
import { APNS_REASONS } from "./explain.js";
import { appName } from "./phone.js";

/** The suffix apns-topic needs for each push type (the bare bundle id for the others). */
const TOPIC_SUFFIX = { voip: ".voip", liveactivity: ".push-type.liveactivity", location: ".location-query", complication: ".complication", fileprovider: ".pushkit.fileprovider", pushtotalk: ".voip-ptt", widgets: ".push-type.widgets", controls: ".push-type.controls" };

const PUSH_TYPES = ["alert", "background", "voip", "liveactivity", "location", "complication", "fileprovider", "mdm", "pushtotalk", "widgets", "controls"];

export class SendForm {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks; // now(): the server's clock, in ms
    this.device = null;
    this.sentRequests = new Map();
    this.build();
  }

  field(label, control, hint) {
    return el("label", { class: "field" }, el("span", { class: "field-label" }, label), control, hint ? el("span", { class: "field-hint muted" }, hint) : null);
  }

  build() {
    const f = (this.f = {});
    f.modeDevice = el("button", { type: "button", class: "seg", "aria-pressed": "true", onclick: () => this.setMode("device") }, "Simulated device");
    f.modeToken = el("button", { type: "button", class: "seg", "aria-pressed": "false", onclick: () => this.setMode("token") }, "Token");
    f.deviceId = el("input", { id: "send-device", list: "send-device-options", placeholder: "device id", autocomplete: "off", spellcheck: false });
    f.deviceOptions = el("datalist", { id: "send-device-options" });
    f.app = el("select", { id: "send-app", "aria-label": "app" });
    f.tokenChoice = el("select", { id: "send-token-choice", "aria-label": "which token" });
    f.token = el("input", { id: "send-token", placeholder: "64+ hex digits", autocomplete: "off", spellcheck: false, class: "mono" });
    f.environment = el("select", { id: "send-environment" },
      el("option", { value: "" }, "as registered"), el("option", { value: "development" }, "development (sandbox)"), el("option", { value: "production" }, "production"));
    f.pushType = el("select", { id: "send-push-type" }, PUSH_TYPES.map((t) => el("option", { value: t }, t)));
    f.topic = el("input", { id: "send-topic", placeholder: "bundle id + the type's suffix", autocomplete: "off", spellcheck: false });
    f.priority = el("select", { id: "send-priority" },
      el("option", { value: "" }, "not sent (10)"), el("option", { value: "10" }, "10 immediately"), el("option", { value: "5" }, "5 power-saving"), el("option", { value: "1" }, "1 lowest"));
    f.expiration = el("select", { id: "send-expiration" },
      el("option", { value: "" }, "not sent (stored 30 days)"), el("option", { value: "0" }, "0 (deliver once, never stored)"),
      el("option", { value: "3600" }, "in 1 hour"), el("option", { value: "86400" }, "in 1 day"), el("option", { value: "-60" }, "1 minute ago"));
    f.collapseId = el("input", { id: "send-collapse-id", placeholder: "optional", autocomplete: "off" });
    f.apnsId = el("input", { id: "send-apns-id", placeholder: "optional UUID", autocomplete: "off", class: "mono" });
    f.payload = el("textarea", { id: "send-payload", rows: 9, spellcheck: false, class: "mono" });
    f.payloadState = el("span", { class: "payload-state muted" });
    f.keyId = el("input", { id: "send-key-id", placeholder: "scenario key", autocomplete: "off" });
    f.teamId = el("input", { id: "send-team-id", placeholder: "the key's team", autocomplete: "off" });
    f.pem = el("textarea", { id: "send-key-pem", rows: 3, placeholder: "-----BEGIN PRIVATE KEY----- (optional: a .p8 the scenario does not have)", class: "mono", spellcheck: false });
    f.send = el("button", { type: "submit", class: "primary", id: "send-button" }, "Send push");
    f.answer = el("div", { class: "answer", id: "send-answer", "aria-live": "polite" });

    const templates = [
      ["Alert", () => this.template("alert")],
      ["Silent", () => this.template("silent")],
      ["Actions", () => this.template("actions")],
      ["VoIP", () => this.template("voip")],
      ["Live Activity", () => this.template("liveactivity")],
    ];
    const form = el("form", { class: "send-form", id: "send-form", onsubmit: (event) => { event.preventDefault(); this.send(); } },
      el("div", { class: "segmented" }, f.modeDevice, f.modeToken),
      el("div", { class: "target-device" },
        el("div", { class: "row2" }, this.field("Device", f.deviceId), this.field("App", f.app)), f.deviceOptions,
        this.field("Token", f.tokenChoice)),
      el("div", { class: "target-token", hidden: true }, this.field("Device token", f.token)),
      el("div", { class: "row2" }, this.field("Push type", f.pushType), this.field("Environment", f.environment)),
      this.field("apns-topic", f.topic),
      el("div", { class: "row2" }, this.field("apns-priority", f.priority), this.field("apns-expiration", f.expiration)),
      el("div", { class: "row2" }, this.field("apns-collapse-id", f.collapseId), this.field("apns-id", f.apnsId)),
      el("div", { class: "templates" }, el("span", { class: "field-label" }, "Templates"),
        templates.map(([label, apply]) => el("button", { type: "button", class: "template", "data-template": label, onclick: apply }, label))),
      this.field("Payload", f.payload),
      f.payloadState,
      el("details", { class: "auth" }, el("summary", {}, "Signing key"),
        el("p", { class: "muted small" }, "By default a scenario key with its private half signs the provider token (the sample key, AuthKey_PUSHLAB001.p8, in the default scenario)."),
        el("div", { class: "row2" }, this.field("Key id", f.keyId), this.field("Team id", f.teamId)), this.field("Private key (.p8)", f.pem)),
      f.send);
    fill(this.root, form, f.answer);

    f.deviceId.addEventListener("change", () => this.loadDevice(f.deviceId.value.trim()));
    f.app.addEventListener("change", () => this.fillTokens());
    f.pushType.addEventListener("change", () => this.fillTopicHint());
    f.tokenChoice.addEventListener("change", () => this.fillTopicHint());
    f.payload.addEventListener("input", () => this.checkPayload());
    this.template("alert");
  }

  setMode(mode) {
    const f = this.f;
    f.modeDevice.setAttribute("aria-pressed", String(mode === "device"));
    f.modeToken.setAttribute("aria-pressed", String(mode === "token"));
    this.root.querySelector(".target-device").hidden = mode !== "device";
    this.root.querySelector(".target-token").hidden = mode !== "token";
    this.mode = mode;
    this.fillTopicHint();
  }

  /** The device list and the phones know these ids: offered while typing one. */
  offerDevices(ids) {
    fill(this.f.deviceOptions, ...ids.map((id) => el("option", { value: id })));
  }

  /** Points the form at a device (a phone's "Send to…"). */
  async target(id, bundleId) {
    this.setMode("device");
    this.f.deviceId.value = id;
    await this.loadDevice(id, bundleId);
  }

  async loadDevice(id, bundleId) {
    const f = this.f;
    if (!id) return;
    try {
      this.device = await get(`/v1/devices/${seg(id)}`);
    } catch (error) {
      this.device = null;
      clear(f.app);
      clear(f.tokenChoice);
      toast(error.message, "error");
      return;
    }
    fill(f.app, ...this.device.apps.map((app) => el("option", { value: app.bundleId, selected: app.bundleId === bundleId }, app.bundleId)));
    this.fillTokens();
  }

  get app() {
    return this.device?.apps.find((a) => a.bundleId === this.f.app.value) || null;
  }

  /** The app's tokens: the one the push type picks (the route chooses), or one named. */
  fillTokens() {
    const app = this.app;
    const options = [el("option", { value: "" }, "chosen by the push type")];
    if (app) {
      options.push(el("option", { value: app.deviceToken }, `app token ${shortToken(app.deviceToken)}`));
      for (const [key, label] of [["voip", "VoIP"], ["locationPush", "location"], ["pushToTalk", "Push to Talk"], ["fileProvider", "File Provider"], ["widgets", "widgets"], ["controls", "controls"], ["complication", "complication"]]) {
        if (app[key]?.token) options.push(el("option", { value: app[key].token }, `${label} ${shortToken(app[key].token)}`));
      }
      const live = app.liveActivities;
      if (live?.pushToStartToken) options.push(el("option", { value: live.pushToStartToken }, `push-to-start ${shortToken(live.pushToStartToken)}`));
      for (const activity of live?.activities || []) {
        if (activity.pushToken) options.push(el("option", { value: activity.pushToken }, `activity ${activity.attributesType} (${activity.state}) ${shortToken(activity.pushToken)}`));
      }
    }
    fill(this.f.tokenChoice, ...options);
    this.fillTopicHint();
  }

  fillTopicHint() {
    const app = this.app;
    const type = this.f.pushType.value;
    const suffix = TOPIC_SUFFIX[type] || "";
    this.f.topic.placeholder = this.mode !== "token" && app ? `${app.bundleId}${suffix} (from the app)` : "the app's bundle id + the type's suffix";
  }

  checkPayload() {
    const text = this.f.payload.value;
    const bytes = new TextEncoder().encode(text).length;
    const limit = this.f.pushType.value === "voip" ? 5120 : 4096;
    let state;
    try {
      const value = JSON.parse(text);
      state = value && typeof value === "object" && !Array.isArray(value) ? "JSON object" : "JSON, but not an object: the device will drop it";
    } catch {
      state = "not JSON: sent as it is, and the device will drop it";
    }
    this.f.payloadState.textContent = `${state} · ${bytes.toLocaleString("en")} / ${limit.toLocaleString("en")} bytes`;
    this.f.payloadState.classList.toggle("bad", !state.startsWith("JSON object") || bytes > limit);
  }

  template(name) {
    const f = this.f;
    const app = this.app;
    const now = Math.floor(this.hooks.now() / 1000);
    let type = "alert";
    let priority = "";
    let payload;
    switch (name) {
      case "alert":
        payload = { aps: { alert: { title: "Cara", subtitle: "Lunch", body: "Lunch at 1? The usual place." }, sound: "default", badge: 1 } };
        break;
      case "silent":
        type = "background";
        priority = "5";
        payload = { aps: { "content-available": 1 }, sync: "inbox" };
        break;
      case "actions": {
        const category = app?.categories?.[0]?.id || "MESSAGE";
        payload = { aps: { alert: { title: "Cara", body: "Lunch at 1?" }, category, sound: "default" }, chat: 42 };
        break;
      }
      case "voip":
        type = "voip";
        priority = "10";
        payload = { aps: {}, caller: "Cara", handle: "+1 555 0100" };
        break;
      case "liveactivity": {
        type = "liveactivity";
        priority = "10";
        const activity = app?.liveActivities?.activities?.find((a) => a.state === "active");
        payload = activity
          ? { aps: { timestamp: now, event: "update", "content-state": { ...activity.contentState }, alert: { title: appName(app.bundleId), body: "Updated" } } }
          : { aps: { timestamp: now, event: "start", "content-state": { eta: 10 }, "attributes-type": app?.liveActivities?.attributesTypes?.[0] || "DeliveryAttributes", attributes: { order: "42" }, alert: { title: "Delivery", body: "On its way" } } };
        break;
      }
      default:
        return;
    }
    f.pushType.value = type;
    f.priority.value = priority;
    f.payload.value = JSON.stringify(payload, null, 2);
    this.fillTopicHint();
    this.checkPayload();
  }

  body() {
    const f = this.f;
    const body = {};
    if (this.mode === "token") {
      body.deviceToken = f.token.value.trim();
    } else if (f.tokenChoice.value) {
      body.deviceToken = f.tokenChoice.value;
    } else {
      body.deviceId = f.deviceId.value.trim();
      if (f.app.value) body.bundleId = f.app.value;
    }
    body.pushType = f.pushType.value;
    if (f.environment.value) body.environment = f.environment.value;
    if (f.topic.value.trim()) body.topic = f.topic.value.trim();
    else if (body.deviceToken && this.mode !== "token" && this.app) body.topic = this.app.bundleId + this.suffix();
    if (f.priority.value) body.priority = Number(f.priority.value);
    if (f.expiration.value) body.expiration = f.expiration.value === "0" ? 0 : Math.floor(this.hooks.now() / 1000) + Number(f.expiration.value);
    if (f.collapseId.value) body.collapseId = f.collapseId.value;
    if (f.apnsId.value.trim()) body.apnsId = f.apnsId.value.trim();
    // JSON goes as JSON, other text as it is, and so does `null` (the API refuses a null
    // field): APNs judges the body a provider would send.
    let payload = null;
    try {
      payload = JSON.parse(f.payload.value);
    } catch {
      // Not JSON: sent as text.
    }
    body.payload = payload ?? f.payload.value;
    if (f.keyId.value.trim()) body.keyId = f.keyId.value.trim();
    if (f.teamId.value.trim()) body.teamId = f.teamId.value.trim();
    if (f.pem.value.trim()) body.privateKeyPem = f.pem.value;
    return body;
  }

  suffix() {
    return TOPIC_SUFFIX[this.f.pushType.value] || "";
  }

  async send() {
    const f = this.f;
    f.send.disabled = true;
    f.send.textContent = "Sending…";
    try {
      const result = await post("/v1/send", this.body());
      const apnsId = result.answer?.headers?.["apns-id"];
      if (apnsId) this.sentRequests.set(apnsId.toLowerCase(), result.request);
      this.showAnswer(result);
    } catch (error) {
      fill(f.answer, el("div", { class: "answer-status bad" }, "Not sent"), el("p", {}, error.message));
    } finally {
      f.send.disabled = false;
      f.send.textContent = "Send push";
    }
  }

  sentRequest(apnsId) {
    return this.sentRequests.get((apnsId || "").toLowerCase()) || null;
  }

  showAnswer(result) {
    const a = result.answer;
    const copy = el("button", { type: "button", class: "copy", onclick: () => copyText(result.curl, copy) }, "Copy");
    fill(this.f.answer, 
      a ? el("div", { class: `answer-status ${a.status === 200 ? "ok" : "bad"}`, "data-status": a.status },
        `${a.status} ${a.status === 200 ? "OK" : a.reason || ""}`) : el("div", { class: "answer-status bad" }, "No answer"),
      a ? null : el("p", {}, result.noAnswer),
      a?.reason ? el("p", { class: "why" }, APNS_REASONS[a.reason] || "") : null,
      a ? el("table", { class: "kv" },
        Object.entries(a.headers || {}).map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", { class: "mono" }, value))),
        a.body ? el("tr", {}, el("th", {}, "body"), el("td", { class: "mono" }, a.body)) : null,
        a.timestamp ? el("tr", {}, el("th", {}, "since"), el("td", {}, new Date(a.timestamp).toISOString())) : null) : null,
      el("details", {}, el("summary", {}, "Request as sent"), el("pre", { class: "json" }, pretty(result.request))),
      el("div", { class: "curl-head" }, el("span", { class: "field-label" }, "The same with curl"), copy),
      el("pre", { class: "curl mono", id: "send-curl" }, result.curl));
  }
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch {
    button.textContent = "Select and copy";
  }
  setTimeout(() => { button.textContent = "Copy"; }, 1500);
}
