// The dashboard: the phones, the device list, the live timeline, the Send form, the Health tab
// and the provider Report tab, put together. It uses only control API routes (docs/CONTROL-API.md).
import { askForToken, get, seg, streamEvents } from "./api.js";
import { el, fill } from "./dom.js";
import { Clock } from "./clock.js";
import { Detail } from "./detail.js";
import { DeviceList } from "./devices.js";
import { Health } from "./health.js";
import { Stage } from "./phones.js";
import { Report } from "./report.js";
import { SendForm } from "./send.js";
import { Timeline } from "./timeline.js";

const $ = (id) => document.getElementById(id);
const FIRST_PHONES = 4;
const POLL_MS = 2000;
const HISTORY_REQUESTS = 200;
const HISTORY_OBSERVATIONS = 500;
const TABS = ["send", "health", "report"];

/** Which device each token belongs to, for the devices the page has seen (requests name tokens). */
const owners = new Map();
function learnTokens(devices) {
  for (const device of devices) {
    for (const app of device.apps) {
      const tokens = [app.deviceToken, app.liveActivities?.pushToStartToken, ...(app.liveActivities?.activities || []).map((a) => a.pushToken)];
      for (const key of ["voip", "locationPush", "pushToTalk", "fileProvider", "widgets", "controls", "complication"]) tokens.push(app[key]?.token);
      for (const token of tokens) if (token) owners.set(token, device.id);
    }
    if (device.mdm?.token) owners.set(device.mdm.token, device.id);
  }
}

const clock = new Clock({ time: $("clock-time"), mode: $("clock-mode"), controls: $("clock-controls"), toggle: $("clock-mode-toggle") }, (ms) => stage.setClock(ms));

const send = new SendForm($("tab-send"), { now: () => clock.now() });

const stage = new Stage($("stage"), {
  sendTo: (id, bundleId) => {
    selectTab("send");
    send.target(id, bundleId);
  },
  showTimeline: (id) => timeline.showDevice(id),
  changed: () => {
    devices.render();
    offerDevices();
    rememberView();
  },
});

const devices = new DeviceList(
  { list: $("device-list"), search: $("device-search"), prev: $("device-prev"), next: $("device-next"), page: $("device-page"), total: $("device-total") },
  {
    toggle: (id) => stage.toggle(id),
    isShown: (id) => stage.has(id),
    pageLoaded: (page) => {
      learnTokens(page);
      offerDevices();
    },
  });

function offerDevices() {
  const ids = [...new Set([...stage.ids, ...devices.devices.map((d) => d.id)])];
  send.offerDevices(ids);
  fill($("filter-device-options"), ...ids.map((id) => el("option", { value: id })));
}

const timeline = new Timeline(
  {
    scroll: $("timeline-scroll"), spacer: $("timeline-spacer"), rows: $("timeline-rows"), count: $("timeline-count"),
    pause: $("timeline-pause"), clear: $("timeline-clear"), device: $("filter-device"), app: $("filter-app"),
    kind: $("filter-kind"), reason: $("filter-reason"), reasonOptions: $("filter-reason-options"),
  },
  {
    select: (event) => detail.show(event),
    deviceOfToken: (token) => owners.get(token),
    deviceChosen: async (id) => {
      try {
        learnTokens([await get(`/v1/devices/${seg(id)}`)]);
        timeline.refilter();
      } catch {
        // Not a device (yet): the filter still matches its observations by id.
      }
    },
    arrived: (event) => {
      if (event.type === "observation") stage.observe(event.data, event.live);
    },
  });

const detail = new Detail($("detail"), {
  related: (apnsId) => timeline.related(apnsId),
  sent: (apnsId) => send.sentRequest(apnsId),
  deviceOf: (event) => timeline.deviceOf(event),
});

const health = new Health($("tab-health"), {
  rate: (rate) => { $("rate").textContent = `${rate >= 100 ? Math.round(rate).toLocaleString("en") : rate.toFixed(1)} req/s`; },
});

const report = new Report($("tab-report"));

function selectTab(name, remember = true) {
  for (const tab of document.querySelectorAll("[role=tab]")) tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  for (const tab of TABS) $(`tab-${tab}`).hidden = name !== tab;
  $("layout").dataset.tab = name; // the Report tab takes a wider column
  report.show(name === "report"); // read once a second while it is on screen
  if (remember) rememberView();
}
for (const tab of document.querySelectorAll("[role=tab]")) tab.addEventListener("click", () => selectTab(tab.dataset.tab));

/** The address names the phones shown and the tab other than Send: `#devices=ann,cara&tab=report`. */
function rememberView() {
  const parts = stage.ids.length ? [`devices=${stage.ids.map(encodeURIComponent).join(",")}`] : [];
  if ($("layout").dataset.tab !== "send") parts.push(`tab=${$("layout").dataset.tab}`);
  history.replaceState(null, "", parts.length ? `#${parts.join("&")}` : "#");
}
const tabInAddress = (location.hash.match(/tab=([^&]*)/) || [])[1];
if (TABS.includes(tabInAddress)) selectTab(tabInAddress, false);
$("token-button").addEventListener("click", () => askForToken());

let knownDeviceCount = null;
let lastObservation = null;
async function poll() {
  try {
    const h = await get("/v1/health");
    clock.set(h.clock);
    $("scenario-name").textContent = h.scenario ? `scenario ${h.scenario}` : "no scenario";
    // Devices added or removed (a test, a reset): the list shows the change.
    if (knownDeviceCount !== null && (h.devices !== knownDeviceCount || h.lastObservation < lastObservation)) devices.load();
    knownDeviceCount = h.devices;
    lastObservation = h.lastObservation;
    await health.refresh(h);
    return h;
  } catch {
    return null;
  }
}

/** The newest requests and observations from before the page opened, then the live stream. */
async function start() {
  const early = [];
  let backfilled = false;
  const live = $("live");
  streamEvents((type, data) => {
    if (!backfilled) early.push([type, data]);
    else timeline.add(type, data);
  }, (state) => {
    live.dataset.state = state;
    $("live-text").textContent = state === "live" ? "live" : "reconnecting…";
  });
  const h = await poll();
  await devices.load();
  const wanted = decodeURIComponent((location.hash.match(/devices=([^&]*)/) || [])[1] || "").split(",").filter(Boolean);
  const first = wanted.length ? wanted : devices.devices.slice(0, FIRST_PHONES).map((d) => d.id);
  await Promise.all(first.map((id) => stage.show(id)));
  if (first.length) send.target(first[0]);
  try {
    const since = Math.max(0, (h?.lastObservation || 0) - HISTORY_OBSERVATIONS);
    const [pushes, observations] = await Promise.all([
      get(`/v1/pushes?limit=${HISTORY_REQUESTS}`),
      get(`/v1/observations?since=${since}&limit=${HISTORY_OBSERVATIONS}`),
    ]);
    const past = [
      ...pushes.pushes.map((p) => ["request", p]),
      ...observations.observations.map((o) => ["observation", o]),
    ].sort((a, b) => a[1].timeMs - b[1].timeMs);
    for (const [type, data] of past) timeline.add(type, data, false);
  } catch {
    // No history (a server without a store can still stream): start with the live events.
  }
  backfilled = true;
  for (const [type, data] of early) timeline.add(type, data);
  setInterval(poll, POLL_MS);
  document.body.dataset.ready = "true";
}

start();
