// Reading GET /metrics (Prometheus text format 0.0.4) and the numbers the Health tab shows.

/** Every sample: `{name, labels, value}`. */
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const pair of (match[3] || "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2].replace(/\\(.)/g, "$1");
    samples.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return samples;
}

/** What the Health tab needs from one scrape. */
export function healthNumbers(samples) {
  const sum = (name) => samples.filter((s) => s.name === name).reduce((total, s) => total + s.value, 0);
  const byAnswer = new Map();
  for (const s of samples.filter((s) => s.name === "pushlab_apns_requests_total" && s.value > 0)) {
    const key = `${s.labels.status}|${s.labels.reason}`;
    byAnswer.set(key, (byAnswer.get(key) || 0) + s.value);
  }
  const buckets = samples
    .filter((s) => s.name === "pushlab_apns_answer_seconds_bucket")
    .map((s) => ({ le: s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), count: s.value }))
    .sort((a, b) => a.le - b.le);
  return {
    requests: sum("pushlab_apns_requests_total"),
    accepted: sum("pushlab_apns_accepted_total"),
    byAnswer,
    buckets,
    openConnections: sum("pushlab_apns_open_connections"),
    connections: sum("pushlab_apns_connections_total"),
    eventsDropped: sum("pushlab_events_dropped"),
    storeDropped: sum("pushlab_store_dropped_items"),
  };
}

/** The buckets' counts between two scrapes (the answers of that window). */
export function bucketDelta(now, before) {
  if (!before || before.length !== now.length) return now;
  return now.map((b, i) => ({ le: b.le, count: Math.max(0, b.count - before[i].count) }));
}

/** A quantile (0…1) of cumulative histogram buckets, interpolated within its bucket; null without answers. */
export function quantile(buckets, q) {
  const total = buckets.length ? buckets[buckets.length - 1].count : 0;
  if (!total) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      if (bucket.le === Infinity) return lower;
      const inBucket = bucket.count - below;
      return inBucket > 0 ? lower + ((bucket.le - lower) * (rank - below)) / inBucket : bucket.le;
    }
    lower = bucket.le;
    below = bucket.count;
  }
  return lower;
}

/** Seconds in words: `38 µs`, `2.1 ms`, `1.20 s`. */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  if (seconds < 0.001) return `${Math.round(seconds * 1e6)} µs`;
  if (seconds < 1) return `${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 1)} ms`;
  return `${seconds.toFixed(2)} s`;
}
