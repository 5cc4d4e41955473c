// The few pictures the phones need, drawn as SVG (no image files, no emoji fonts).
import { svg } from "./dom.js";

const box = (width, height, ...children) => svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, "aria-hidden": "true", class: "icon" }, ...children);

export function signalIcon() {
  return box(15, 10, ...[0, 1, 2, 3].map((i) => svg("rect", { x: i * 4, y: 7 - i * 2.3, width: 3, height: 3 + i * 2.3, rx: 0.8, fill: "currentColor" })));
}

export function wifiIcon() {
  return box(14, 10,
    svg("path", { d: "M7 9.6 4.9 7.4a3 3 0 0 1 4.2 0Z", fill: "currentColor" }),
    svg("path", { d: "M2.9 5.4a5.8 5.8 0 0 1 8.2 0", stroke: "currentColor", "stroke-width": 1.5, fill: "none", "stroke-linecap": "round" }),
    svg("path", { d: "M.9 3.3a8.6 8.6 0 0 1 12.2 0", stroke: "currentColor", "stroke-width": 1.5, fill: "none", "stroke-linecap": "round" }));
}

export function batteryIcon(lowPower) {
  return box(22, 10,
    svg("rect", { x: 0.5, y: 0.5, width: 18, height: 9, rx: 2.5, stroke: "currentColor", "stroke-opacity": 0.5, fill: "none" }),
    svg("rect", { x: 2, y: 2, width: lowPower ? 6 : 13, height: 6, rx: 1.3, fill: lowPower ? "#ffcc00" : "currentColor" }),
    svg("rect", { x: 19.8, y: 3.3, width: 1.5, height: 3.4, rx: 0.7, fill: "currentColor", "fill-opacity": 0.5 }));
}

export function moonIcon() {
  return box(10, 10, svg("path", { d: "M6.6 9.4A4.6 4.6 0 0 1 4.2.6a4 4 0 1 0 5 5.5 4.6 4.6 0 0 1-2.6 3.3Z", fill: "#a78bfa" }));
}

export function airplaneIcon() {
  return box(12, 12, svg("path", { d: "M5.2 11.4h1.1l2.2-4.1h2.2a.9.9 0 0 0 0-1.8H8.5L6.3 1.4H5.2l1.1 4.1H3.7l-.8-1.1H2l.5 1.9L2 8.2h.9l.8-1.1h2.6Z", fill: "currentColor" }));
}

export function lockIcon(open = false) {
  return box(12, 15,
    svg("path", { d: open ? "M3.2 6.5V4.2a2.8 2.8 0 0 1 5.5-.6" : "M3.2 6.5V4.2a2.8 2.8 0 0 1 5.6 0v2.3", stroke: "currentColor", "stroke-width": 1.6, fill: "none" }),
    svg("rect", { x: 1, y: 6.3, width: 10, height: 8, rx: 2, fill: "currentColor" }));
}

export function bellIcon() {
  return box(14, 14, svg("path", { d: "M7 1.3a3.9 3.9 0 0 0-3.9 3.9v2.6L1.8 10h10.4L10.9 7.8V5.2A3.9 3.9 0 0 0 7 1.3Zm-1.6 9.9a1.6 1.6 0 0 0 3.2 0Z", fill: "currentColor" }));
}
