// The control API, as the page uses it: the same routes a test calls (docs/CONTROL-API.md).
// With a control token, the page asks for it once and sends it with every request.

const TOKEN_KEY = "pushlab.controlToken";

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let askingForToken = null;

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

/** Asks for the control token (once, however many requests were refused). */
export function askForToken() {
  if (askingForToken) return askingForToken;
  const dialog = document.getElementById("token-dialog");
  const input = document.getElementById("token-input");
  document.getElementById("token-button").hidden = false;
  askingForToken = new Promise((resolve) => {
    dialog.querySelector("form").onsubmit = (event) => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, input.value);
      dialog.close();
      askingForToken = null;
      resolve();
    };
    dialog.showModal();
    input.focus();
  });
  return askingForToken;
}

/** A request; JSON in and out. A refusal throws an APIError with the server's message. */
export async function api(method, path, body) {
  for (;;) {
    const init = { method, headers: headers(body === undefined ? {} : { "content-type": "application/json" }) };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(path, init);
    if (response.status === 401) {
      await askForToken();
      continue;
    }
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!response.ok) throw new APIError(response.status, (json && json.error) || `${response.status} ${response.statusText}`);
    return json ?? text;
  }
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const patch = (path, body) => api("PATCH", path, body);
export const del = (path) => api("DELETE", path);

/** `/metrics`: Prometheus text. */
export async function metricsText() {
  for (;;) {
    const response = await fetch("/metrics", { headers: headers() });
    if (response.status === 401) {
      await askForToken();
      continue;
    }
    return response.text();
  }
}

/** A path segment: ids and bundle ids may hold any character. */
export const seg = (text) => encodeURIComponent(text);

/**
 * Reads GET /v1/events (server-sent events) with fetch, so the token can go in a header, and
 * calls `onEvent(type, data)` for each; reconnects after a pause when the stream ends.
 * `onState` hears "live", "reconnecting".
 */
export function streamEvents(onEvent, onState) {
  let stopped = false;
  async function run() {
    while (!stopped) {
      try {
        const response = await fetch("/v1/events", { headers: headers({ accept: "text/event-stream" }) });
        if (response.status === 401) {
          await askForToken();
          continue;
        }
        if (!response.ok || !response.body) throw new Error(`${response.status}`);
        onState("live");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            dispatch(block, onEvent);
          }
        }
      } catch {
        // The server went away or restarted: try again shortly.
      }
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  run();
  return () => { stopped = true; };
}

function dispatch(block, onEvent) {
  let type = "message";
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    if (line.startsWith("event:")) type = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trimStart();
  }
  if (!data) return;
  try {
    onEvent(type, JSON.parse(data));
  } catch {
    // A line that is not JSON is not an event this page knows.
  }
}
