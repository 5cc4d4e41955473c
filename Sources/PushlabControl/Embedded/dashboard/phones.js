// The phones on the stage: the devices the user picked (a handful, whatever the number of
// devices), each refreshed when an event names it, and every few seconds for changes made
// elsewhere (a test's PATCH makes no event).
import { get, patch, post, seg } from "./api.js";
import { el, toast } from "./dom.js";
import { Phone } from "./phone.js";

const MOST_PHONES = 8;
const REFRESH_AFTER_EVENT_MS = 150;
const POLL_MS = 3000;

export class Stage {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks; // sendTo(id, bundleId), showTimeline(id), changed()
    this.phones = new Map();
    this.pending = new Set();
    this.refreshTimer = null;
    this.clockMs = Date.now();
    this.empty = el("p", { class: "stage-empty muted" }, "No phone shown: pick a device on the left.");
    this.root.append(this.empty);
    setInterval(() => this.refreshAll(), POLL_MS);
  }

  get ids() {
    return [...this.phones.keys()];
  }

  has(id) {
    return this.phones.has(id);
  }

  toggle(id) {
    if (this.phones.has(id)) this.hide(id);
    else this.show(id);
  }

  async show(id) {
    if (this.phones.has(id)) return;
    if (this.phones.size >= MOST_PHONES) this.hide(this.ids[0]);
    const phone = new Phone(id, this.actions());
    phone.setClock(this.clockMs);
    this.phones.set(id, phone);
    this.root.append(phone.root);
    this.empty.hidden = true;
    await this.refresh(id);
    this.hooks.changed();
  }

  hide(id) {
    const phone = this.phones.get(id);
    if (!phone) return;
    phone.root.remove();
    this.phones.delete(id);
    this.empty.hidden = this.phones.size > 0;
    this.hooks.changed();
  }

  /** What the phones do when clicked: the control API's routes, then a fresh look. */
  actions() {
    const act = async (id, request) => {
      try {
        await request();
      } catch (error) {
        toast(error.message, "error");
      }
      await this.refresh(id);
    };
    return {
      interact: (id, body) => act(id, () => post(`/v1/devices/${seg(id)}/interactions`, body)),
      patchDevice: (id, body) => act(id, () => patch(`/v1/devices/${seg(id)}`, body)),
      patchApp: (id, bundleId, body) => act(id, () => patch(`/v1/devices/${seg(id)}/apps/${seg(bundleId)}`, body)),
      sendTo: (id, bundleId) => this.hooks.sendTo(id, bundleId),
      showTimeline: (id) => this.hooks.showTimeline(id),
      hide: (id) => this.hide(id),
    };
  }

  async refresh(id) {
    const phone = this.phones.get(id);
    if (!phone) return;
    try {
      phone.update(await get(`/v1/devices/${seg(id)}`));
    } catch (error) {
      if (error.status === 404) this.hide(id);
    }
  }

  refreshAll() {
    for (const id of this.ids) this.refresh(id);
  }

  /** Events for shown devices: banners at once (live ones only), the rest in one refresh shortly after. */
  observe(observation, live) {
    const phone = this.phones.get(observation.deviceId);
    if (!phone) return;
    if (observation.kind === "banner" && live) phone.showBanner(observation);
    if (observation.kind === "callback") phone.noteCallback(observation);
    this.pending.add(observation.deviceId);
    if (!this.refreshTimer) {
      this.refreshTimer = setTimeout(() => {
        this.refreshTimer = null;
        const ids = [...this.pending];
        this.pending.clear();
        for (const id of ids) this.refresh(id);
      }, REFRESH_AFTER_EVENT_MS);
    }
  }

  setClock(ms) {
    this.clockMs = ms;
    for (const phone of this.phones.values()) phone.setClock(ms);
  }
}
