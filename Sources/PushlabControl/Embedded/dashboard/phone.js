// One simulated iPhone, drawn from its device JSON (GET /v1/devices/{id}): the lock screen or
// the home screen (or the app on screen), banners as they arrive, badges, Notification Center,
// Live Activities, and the switches below it. Every click calls the control API through
// `actions`, the routes a test would use.
import { deviceTime, el, fill } from "./dom.js";
import { callbackName, sdkDetails } from "./explain.js";
import { airplaneIcon, batteryIcon, bellIcon, lockIcon, moonIcon, signalIcon, wifiIcon } from "./icons.js";

const BANNER_SECONDS = 8;

const STATES = [
  ["notRunning", "Not running"],
  ["background", "Background"],
  ["inactive", "Inactive"],
  ["foreground", "Foreground"],
  ["forceQuit", "Force-quit"],
];

/** `com.example.delivery` → `Delivery`. */
export function appName(bundleId) {
  const last = (bundleId || "").split(".").filter(Boolean).pop() || bundleId || "?";
  return last.charAt(0).toUpperCase() + last.slice(1);
}

function appHue(bundleId) {
  let hash = 0;
  for (const c of bundleId || "") hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return hash % 360;
}

export function appIcon(bundleId, size = "") {
  return el("span", { class: `app-icon ${size}`, style: { "--hue": appHue(bundleId) }, "aria-hidden": "true" }, appName(bundleId).charAt(0));
}

const stateOf = (app) => (app.state === "notRunning" && app.terminatedBy === "user" ? "forceQuit" : app.state);

export class Phone {
  /**
   * @param {string} id the device id
   * @param {object} actions `interact(id, body)`, `patchDevice(id, body)`, `patchApp(id, bundleId, body)`,
   *   `sendTo(id, bundleId)`, `showTimeline(id)`, `hide(id)`
   */
  constructor(id, actions) {
    this.id = id;
    this.actions = actions;
    this.device = null;
    this.now = Date.now();
    this.banner = null;
    this.bannerTimer = null;
    this.notificationCenterOpen = false;
    this.typing = null;
    /** What each app's code saw lately (callbacks), newest last: the app on screen shows it. */
    this.calls = new Map();
    this.root = el("article", { class: "phone-card", "data-device": id });
  }

  /** The device as read now: drawn again only when it or the app's callbacks changed, and not while the user types. */
  update(device) {
    const text = JSON.stringify(device);
    if (text === this.deviceText && !this.callsChanged) return;
    this.device = device;
    this.deviceText = text;
    if (!this.typing) {
      this.callsChanged = false;
      this.render();
    }
  }

  setClock(ms) {
    if (Math.floor(ms / 60000) === Math.floor(this.now / 60000)) {
      this.now = ms;
      return;
    }
    this.now = ms;
    if (this.device && !this.typing) this.render();
  }

  /** A callback observation: the app on screen lists the latest ones from the next refresh on,
   *  which the observation schedules, even when the device itself did not change. */
  noteCallback(observation) {
    this.callsChanged = true;
    const list = this.calls.get(observation.bundleId) || [];
    const sdk = sdkDetails(observation.sdk);
    list.push(callbackName(observation.callback) + (observation.actionIdentifier ? ` ${observation.actionIdentifier.replace("com.apple.UNNotification", "").replace("ActionIdentifier", "")}` : "") + (observation.typedText ? ` “${observation.typedText}”` : "")
      + (sdk.length ? ` (${sdk.join(", ")})` : ""));
    this.calls.set(observation.bundleId, list.slice(-5));
  }

  /** A banner observation for this device: shown on top of whatever is on screen for a while. */
  showBanner(observation) {
    this.banner = observation;
    this.typing = null;
    clearTimeout(this.bannerTimer);
    this.bannerTimer = setTimeout(() => this.hideBanner(), BANNER_SECONDS * 1000);
    this.render();
  }

  hideBanner() {
    if (this.typing && this.banner && this.typing.apnsId === this.banner.notificationId) return;
    clearTimeout(this.bannerTimer);
    this.banner = null;
    if (this.device) this.render();
  }

  render() {
    const d = this.device;
    if (!d) return;
    const onScreen = d.locked ? null : d.apps.find((a) => a.state === "foreground" || a.state === "inactive");
    const mode = d.locked ? "lock" : onScreen ? "app" : "home";
    const phone = el("div", {
      class: `phone mode-${mode}${d.online ? "" : " offline"}${d.lowPowerMode ? " low-power" : ""}${d.focus ? " focus" : ""}`,
      "data-mode": mode,
    },
    el("div", { class: "screen" },
      this.statusBar(d),
      this.island(d),
      mode === "lock" ? this.lockScreen(d) : mode === "app" ? this.appScreen(onScreen) : this.homeScreen(d),
      // On the lock screen a notification joins the list instead (marked new for a while).
      this.banner && mode !== "lock" ? this.bannerView(this.banner) : null,
      this.notificationCenterOpen && mode !== "lock" ? this.notificationCenterSheet(d) : null,
      el("button", {
        class: "home-bar", type: "button", title: onScreen ? "Swipe up: the app goes to the background" : "Home",
        onclick: () => onScreen && this.actions.patchApp(d.id, onScreen.bundleId, { state: "background" }),
      })));
    fill(this.root,
      phone,
      el("div", { class: "phone-name", title: d.name },
        el("strong", {}, d.name),
        el("span", { class: "muted" }, ` ${d.id} · iOS ${d.iosVersion}`)),
      this.switches(d),
      this.appRows(d),
      this.heldChips(d),
      el("div", { class: "phone-links" },
        el("button", { type: "button", class: "linklike", onclick: () => this.actions.showTimeline(d.id) }, "Timeline"),
        el("button", { type: "button", class: "linklike", onclick: () => this.actions.sendTo(d.id, d.apps[0]?.bundleId) }, "Send to…"),
        el("button", { type: "button", class: "linklike", onclick: () => this.actions.hide(d.id) }, "Hide")),
    );
  }

  statusBar(d) {
    const time = deviceTime(this.now, d.utcOffsetSeconds);
    return el("div", { class: "status-bar" },
      el("span", { class: "sb-time" }, `${time.hours}:${time.minutes}`),
      el("span", { class: "sb-icons" },
        d.focus ? el("span", { title: "Focus is on: banners and sounds are muted" }, moonIcon()) : null,
        d.online ? [signalIcon(), wifiIcon()] : el("span", { class: "sb-offline", title: "Offline: APNs stores pushes for it" }, airplaneIcon()),
        el("span", { title: d.lowPowerMode ? "Low power mode" : "Battery" }, batteryIcon(d.lowPowerMode))));
  }

  island(d) {
    const live = this.liveActivities(d).find((a) => a.state === "active" || a.state === "stale");
    if (!live || d.locked) return el("div", { class: "island" });
    const first = Object.entries(live.contentState || {})[0];
    return el("div", { class: "island expanded", title: `Live Activity ${live.attributesType}` },
      appIcon(live.bundleId, "tiny"),
      el("span", {}, first ? `${first[1]}` : live.attributesType));
  }

  liveActivities(d) {
    return d.apps.flatMap((app) => (app.liveActivities?.activities || []).map((a) => ({ ...a, bundleId: app.bundleId })));
  }

  notifications(d) {
    return d.apps
      .flatMap((app) => (app.notificationCenter || []).map((entry) => ({ ...entry, bundleId: app.bundleId })))
      .sort((a, b) => (b.deliveredAt || 0) - (a.deliveredAt || 0));
  }

  lockScreen(d) {
    const time = deviceTime(this.now, d.utcOffsetSeconds);
    const entries = this.notifications(d);
    return el("div", { class: "lock-screen" },
      el("div", { class: "lock-glyph", title: "Locked" }, lockIcon()),
      el("div", { class: "lock-date" }, time.date),
      el("div", { class: "lock-time" }, `${time.hours}:${time.minutes}`),
      el("div", { class: "lock-list" },
        this.liveActivities(d).map((a) => this.activityCard(a)),
        entries.length ? el("div", { class: "nc-header" },
          el("span", {}, "Notification Center"),
          el("button", { type: "button", class: "nc-clear", onclick: () => this.actions.interact(d.id, { type: "clearAll" }) }, "Clear")) : null,
        entries.map((entry) => this.notificationCard(d, entry))),
      el("button", {
        class: "unlock", type: "button", title: "Unlock (PATCH locked: false)",
        onclick: () => this.actions.patchDevice(d.id, { locked: false }),
      }, "Unlock"));
  }

  homeScreen(d) {
    const count = this.notifications(d).length;
    const time = deviceTime(this.now, d.utcOffsetSeconds);
    return el("div", { class: "home-screen" },
      el("div", { class: "widget" }, el("span", { class: "widget-day" }, time.date.split(" ")[0]), el("span", { class: "widget-date" }, time.date.split(" ").slice(1).join(" "))),
      el("button", {
        type: "button", class: "nc-pull", title: "Open Notification Center",
        onclick: () => { this.notificationCenterOpen = true; this.render(); },
      }, bellIcon(), count ? ` ${count}` : ""),
      el("div", { class: "app-grid" },
        d.apps.map((app) => el("button", {
          type: "button", class: "home-app", "data-bundle": app.bundleId, title: `Open ${app.bundleId} (tapAppIcon)`,
          onclick: () => this.actions.interact(d.id, { type: "tapAppIcon", bundleId: app.bundleId }),
        },
        el("span", { class: "icon-wrap" },
          appIcon(app.bundleId),
          app.badge > 0 ? el("span", { class: "badge", "data-badge": app.badge }, app.badge > 99 ? "99+" : app.badge) : null),
        el("span", { class: "app-label" }, appName(app.bundleId)),
        el("span", { class: `state-dot state-${stateOf(app)}`, title: stateOf(app) })))),
      this.liveActivities(d).filter((a) => a.state !== "ended").slice(0, 1).map((a) => this.activityCard(a)));
  }

  appScreen(app) {
    const calls = this.calls.get(app.bundleId) || [];
    return el("div", { class: "app-screen", style: { "--hue": appHue(app.bundleId) } },
      appIcon(app.bundleId, "large"),
      el("div", { class: "app-title" }, appName(app.bundleId)),
      el("div", { class: "app-sub" }, app.state === "foreground" ? "on screen (foreground)" : "on screen (inactive)"),
      el("div", { class: "app-sub muted" }, app.bundleId),
      calls.length ? el("ol", { class: "app-calls", title: "The app's latest callbacks" }, calls.map((call) => el("li", {}, call))) : null);
  }

  activityCard(activity) {
    const state = Object.entries(activity.contentState || {});
    return el("div", { class: `activity-card state-${activity.state}`, "data-activity": activity.id },
      el("div", { class: "activity-head" }, appIcon(activity.bundleId, "tiny"), el("strong", { title: activity.attributesType }, activity.attributesType.replace(/Attributes$/, "") || activity.attributesType),
        el("span", { class: "muted" }, activity.state === "active" ? "" : activity.state)),
      el("div", { class: "activity-state" }, state.length
        ? state.slice(0, 4).map(([key, value]) => el("span", {}, el("span", { class: "muted" }, key), " ", typeof value === "object" ? JSON.stringify(value) : String(value)))
        : el("span", { class: "muted" }, "no content state")));
  }

  /** The buttons of the category a notification names, from the app's registered categories. */
  actionsFor(d, bundleId, actionIds, categoryId) {
    const app = d.apps.find((a) => a.bundleId === bundleId);
    if (!app) return [];
    const category = categoryId
      ? app.categories.find((c) => c.id === categoryId)
      : app.categories.find((c) => actionIds && actionIds.length && actionIds.every((id) => c.actions.some((a) => a.id === id)));
    return category ? category.actions : [];
  }

  notificationCard(d, entry) {
    const content = entry.content || {};
    const actions = this.actionsFor(d, entry.bundleId, null, content.category);
    const fresh = this.banner && this.banner.notificationId === entry.identifier;
    return el("div", { class: `nc-card${fresh ? " fresh" : ""}`, "data-apns-id": entry.identifier, "data-bundle": entry.bundleId },
      el("button", {
        type: "button", class: "nc-tap", title: "Tap the notification (tapNotification)",
        onclick: () => this.actions.interact(d.id, { type: "tapNotification", bundleId: entry.bundleId, apnsId: entry.identifier }),
      },
      el("span", { class: "nc-app" }, appIcon(entry.bundleId, "tiny"), appName(entry.bundleId)),
      content.title ? el("strong", {}, content.title) : null,
      content.subtitle ? el("span", { class: "nc-subtitle" }, content.subtitle) : null,
      content.body ? el("span", { class: "nc-body" }, content.body) : null),
      el("button", {
        type: "button", class: "nc-dismiss", title: "Swipe it away (dismiss)", "aria-label": "Dismiss",
        onclick: () => this.actions.interact(d.id, { type: "dismiss", bundleId: entry.bundleId, apnsId: entry.identifier }),
      }, "×"),
      actions.length ? this.actionButtons(d, entry.bundleId, entry.identifier, actions) : null);
  }

  notificationCenterSheet(d) {
    const entries = this.notifications(d);
    return el("div", { class: "nc-sheet" },
      el("div", { class: "nc-header" },
        el("span", {}, "Notification Center"),
        el("button", { type: "button", class: "nc-clear", onclick: () => this.actions.interact(d.id, { type: "clearAll" }) }, "Clear"),
        el("button", { type: "button", class: "nc-close", "aria-label": "Close", onclick: () => { this.notificationCenterOpen = false; this.render(); } }, "×")),
      entries.length ? entries.map((entry) => this.notificationCard(d, entry)) : el("p", { class: "nc-empty" }, "No notifications"));
  }

  bannerView(banner) {
    const d = this.device;
    const actions = this.actionsFor(d, banner.bundleId, banner.actions);
    return el("div", { class: "banner", "data-apns-id": banner.notificationId, "data-bundle": banner.bundleId },
      el("button", {
        type: "button", class: "banner-tap", title: "Tap the banner (tapNotification)",
        onclick: () => {
          this.hideBannerNow();
          this.actions.interact(d.id, { type: "tapNotification", bundleId: banner.bundleId, apnsId: banner.notificationId });
        },
      },
      el("span", { class: "banner-head" }, appIcon(banner.bundleId, "tiny"), el("span", { class: "banner-app" }, appName(banner.bundleId)), el("span", { class: "muted" }, "now")),
      banner.title ? el("strong", { class: "banner-title" }, banner.title) : null,
      banner.subtitle ? el("span", { class: "banner-subtitle" }, banner.subtitle) : null,
      banner.body ? el("span", { class: "banner-body" }, banner.body) : null),
      el("button", {
        type: "button", class: "banner-dismiss", "aria-label": "Dismiss", title: "Swipe it away (dismiss)",
        onclick: () => {
          this.hideBannerNow();
          this.actions.interact(d.id, { type: "dismiss", bundleId: banner.bundleId, apnsId: banner.notificationId });
        },
      }, "×"),
      actions.length ? this.actionButtons(d, banner.bundleId, banner.notificationId, actions) : null);
  }

  hideBannerNow() {
    this.typing = null;
    this.hideBanner();
  }

  actionButtons(d, bundleId, apnsId, actions) {
    const typing = this.typing && this.typing.apnsId === apnsId ? this.typing : null;
    if (typing) {
      const input = el("input", { class: "action-text", placeholder: typing.action.title, value: typing.text || "", "aria-label": typing.action.title });
      input.addEventListener("input", () => { typing.text = input.value; });
      const submit = () => {
        this.typing = null;
        this.hideBanner();
        this.actions.interact(d.id, { type: "tapAction", bundleId, apnsId, actionId: typing.action.id, text: input.value });
      };
      input.addEventListener("keydown", (event) => { if (event.key === "Enter") submit(); });
      setTimeout(() => input.focus(), 0);
      return el("div", { class: "action-row typing" }, input, el("button", { type: "button", class: "action-send", onclick: submit }, "Send"));
    }
    return el("div", { class: "action-row" }, actions.map((action) => el("button", {
      type: "button", class: `action${action.destructive ? " destructive" : ""}`, "data-action": action.id,
      title: `${action.id}${action.textInput ? " (text input)" : ""}${action.authenticationRequired ? " (needs unlocking)" : ""}`,
      onclick: () => {
        if (action.textInput) {
          this.typing = { apnsId, action, text: "" };
          this.render();
          return;
        }
        this.hideBannerNow();
        this.actions.interact(d.id, { type: "tapAction", bundleId, apnsId, actionId: action.id });
      },
    }, action.title || action.id)));
  }

  switches(d) {
    const toggle = (field, label, title, value = d[field]) => el("button", {
      type: "button", class: "switch", "aria-pressed": String(value), "data-switch": field, title,
      onclick: () => this.actions.patchDevice(d.id, { [field]: !value }),
    }, label);
    return el("div", { class: "switches" },
      toggle("online", d.online ? "Online" : "Offline", "Reachable by APNs; offline, APNs stores one push per app"),
      toggle("locked", "Locked", "The lock screen; actions that need authentication are refused"),
      toggle("lowPowerMode", "Low power", "Holds background pushes and priority 5 / 1 alerts"),
      toggle("focus", "Focus", "Mutes banners and sounds (time-sensitive and critical break through)"));
  }

  appRows(d) {
    return el("div", { class: "app-rows" }, d.apps.map((app) => {
      const select = el("select", { "data-app-state": app.bundleId, "aria-label": `State of ${app.bundleId}`, title: "The app's state (PATCH …/apps/{bundleId})" },
        STATES.map(([value, label]) => el("option", { value, selected: stateOf(app) === value }, label)));
      select.addEventListener("change", () => {
        const body = select.value === "forceQuit" ? { state: "notRunning", terminatedBy: "user" } : { state: select.value };
        this.actions.patchApp(d.id, app.bundleId, body);
      });
      return el("div", { class: "app-row", title: app.bundleId }, appIcon(app.bundleId, "tiny"), el("span", { class: "app-row-name" }, appName(app.bundleId)), select);
    }));
  }

  heldChips(d) {
    const chips = [];
    for (const app of d.apps) {
      const held = app.held || {};
      if (held.storedWhileOffline) chips.push(el("span", { class: "chip warn", "data-held": "stored", title: `apns-id ${held.storedWhileOffline.apnsId}, expires ${held.storedWhileOffline.expiresAt}` }, `APNs stores 1 push for ${appName(app.bundleId)}`));
      if (held.background) chips.push(el("span", { class: "chip warn", "data-held": "background", title: held.background.until ? `until ${held.background.until}` : "until low power mode ends" }, `1 background push held (${held.background.reason})`));
      if (held.lowPriority && held.lowPriority.length) chips.push(el("span", { class: "chip warn", "data-held": "lowPriority" }, `${held.lowPriority.length} low-priority alert(s) held`));
      if (app.authorization && app.authorization.status === "denied") chips.push(el("span", { class: "chip" }, `${appName(app.bundleId)}: notifications off`));
    }
    return chips.length ? el("div", { class: "held" }, chips) : null;
  }
}
