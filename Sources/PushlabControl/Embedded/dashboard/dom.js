// Small DOM helpers. Everything the server sends is shown with textContent, never parsed as
// HTML: a device name or a payload is data, not markup.

/** Set as properties: what the user can change afterwards, so the attribute would not follow. */
const PROPERTIES = new Set(["value", "checked", "selected", "disabled", "hidden"]);

/** An element: attributes, `class`, `style` (an object), `on*` handlers, and children. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || (value === false && name !== "spellcheck")) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else if (name === "style") for (const [property, v] of Object.entries(value)) node.style.setProperty(property, v);
    else if (PROPERTIES.has(name)) node[name] = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An SVG element (the phone's status bar icons). */
export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Replaces a node's children with these (absent ones left out). */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

const pad = (n, width = 2) => String(n).padStart(width, "0");

/** `00:00:00.000` in UTC: the simulated time of an event. */
export function clockTime(ms) {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

/** `Thu 1 Jan 2026 00:00:00 UTC`. */
export function dateTime(ms) {
  const d = new Date(ms);
  const day = d.toLocaleDateString("en-GB", { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  return `${day.replace(",", "")} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** A device's wall clock: the simulated time in its own time zone. */
export function deviceTime(ms, offsetSeconds = 0) {
  const d = new Date(ms + offsetSeconds * 1000);
  return { hours: d.getUTCHours(), minutes: pad(d.getUTCMinutes()), date: d.toLocaleDateString("en-GB", { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" }) };
}

export function shortToken(token) {
  return token && token.length > 12 ? `${token.slice(0, 6)}…${token.slice(-4)}` : token || "";
}

export function shortId(id) {
  return id && id.length > 13 ? `${id.slice(0, 8)}…` : id || "";
}

export function plural(n, one, many = `${one}s`) {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

/** JSON text for showing: indented, in the order it came. */
export function pretty(value) {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

let toastTimer;
/** A short message at the bottom of the page (what an action did, or why it failed). */
export function toast(message, kind = "info") {
  const node = document.getElementById("toast");
  node.textContent = message;
  node.dataset.kind = kind;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, kind === "error" ? 6000 : 2500);
}
