// The device list: one page at a time from GET /v1/devices?limit=&offset=&search=, so 100,000
// devices cost the page 50 rows, never one element each.
import { get } from "./api.js";
import { clear, el, plural, toast } from "./dom.js";
import { appIcon } from "./phone.js";

const PAGE = 50;
const SEARCH_DELAY_MS = 200;

export class DeviceList {
  constructor({ list, search, prev, next, page, total }, hooks) {
    this.nodes = { list, search, prev, next, page, total };
    this.hooks = hooks; // toggle(id), isShown(id), pageLoaded(devices)
    this.offset = 0;
    this.total = 0;
    this.devices = [];
    this.query = "";
    this.sequence = 0;
    let timer;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.query = search.value.trim();
        this.offset = 0;
        this.load();
      }, SEARCH_DELAY_MS);
    });
    prev.addEventListener("click", () => this.go(-PAGE));
    next.addEventListener("click", () => this.go(PAGE));
  }

  go(delta) {
    const offset = Math.max(0, this.offset + delta);
    if (offset >= this.total && delta > 0) return;
    this.offset = offset;
    this.load();
  }

  async load() {
    const asked = ++this.sequence;
    const params = new URLSearchParams({ limit: PAGE, offset: this.offset });
    if (this.query) params.set("search", this.query);
    try {
      const page = await get(`/v1/devices?${params}`);
      if (asked !== this.sequence) return; // a newer search is on its way
      this.devices = page.devices;
      this.total = page.total;
      this.render();
      this.hooks.pageLoaded(page.devices);
    } catch (error) {
      toast(error.message, "error");
    }
  }

  render() {
    const { list, prev, next, page, total } = this.nodes;
    clear(list);
    for (const device of this.devices) {
      list.append(el("li", {},
        el("button", {
          type: "button", class: `device-row${this.hooks.isShown(device.id) ? " shown" : ""}`, "data-device": device.id,
          onclick: () => this.hooks.toggle(device.id),
        },
        el("span", { class: `online-dot${device.online ? "" : " off"}`, title: device.online ? "online" : "offline" }),
        el("span", { class: "device-text" },
          el("span", { class: "device-name" }, device.name),
          el("span", { class: "device-id muted" }, device.id, device.locked ? " · locked" : "", device.lowPowerMode ? " · low power" : "", device.focus ? " · focus" : "")),
        el("span", { class: "device-apps" }, device.apps.slice(0, 3).map((app) => appIcon(app.bundleId, "tiny"))))));
    }
    if (this.devices.length === 0) list.append(el("li", { class: "muted empty" }, this.query ? `Nothing matches “${this.query}”.` : "No devices."));
    const first = this.total === 0 ? 0 : this.offset + 1;
    page.textContent = `${first.toLocaleString("en")}–${(this.offset + this.devices.length).toLocaleString("en")} of ${this.total.toLocaleString("en")}`;
    total.textContent = this.query ? plural(this.total, "match", "matches") : plural(this.total, "device");
    prev.disabled = this.offset === 0;
    next.disabled = this.offset + PAGE >= this.total;
  }
}
