// Words for what happened: APNs's reasons (as Apple documents them), and the simulator's
// observations and reasons (docs/SIMULATOR.md, section 2).

export const APNS_REASONS = {
  BadCollapseId: "The apns-collapse-id is longer than 64 bytes.",
  BadDeviceToken: "The device token is not valid for this environment: a token is registered for development or production, not both. Check the token and the listener you sent to.",
  BadExpirationDate: "The apns-expiration value is not a valid time.",
  BadMessageId: "The apns-id is not a UUID in its canonical form.",
  BadPriority: "The apns-priority is not 10, 5 or 1 (or 10 for a background push, which APNs refuses when strict).",
  BadTopic: "The apns-topic is not valid.",
  DeviceTokenNotForTopic: "The device token belongs to another app (or another of the app's push types) than the apns-topic names.",
  DuplicateHeaders: "A header was sent twice.",
  IdleTimeout: "The connection was idle for too long.",
  InvalidPushType: "The apns-push-type is not one of APNs's push types, or does not fit the topic.",
  MissingDeviceToken: "The path /3/device/<token> has no token.",
  MissingTopic: "apns-topic is required here (token authentication, or a certificate for several topics).",
  PayloadEmpty: "The payload is empty.",
  TopicDisallowed: "Pushing to this topic is not allowed: no team in the APNs world owns the app, or the key may not push to it.",
  BadCertificate: "The client certificate is not valid.",
  BadCertificateEnvironment: "The client certificate is for the other environment.",
  ExpiredProviderToken: "The provider token is more than an hour old (by the APNs clock): sign a new one.",
  Forbidden: "The action is not allowed.",
  InvalidProviderToken: "The provider token is not valid: an unknown key id or team, or a signature the key does not verify.",
  MissingProviderToken: "No client certificate and no authorization: bearer provider token.",
  UnrelatedKeyIdInToken: "The key id in the token is not related to the key the connection started with.",
  BadEnvironmentKeyIdInToken: "The key is not valid in this environment.",
  BadEnvironmentKeyInToken: "The key is not valid in this environment.",
  BadPath: "The :path is not one APNs serves here.",
  MethodNotAllowed: "The :method is not POST.",
  ExpiredToken: "The device token has expired: stop sending to it.",
  Unregistered: "The device token is no longer active for the topic: the app was uninstalled (or reinstalled, with a new token). Stop sending to it; the timestamp says since when.",
  PayloadTooLarge: "The payload is too large: 4,096 bytes at most (5,120 for VoIP).",
  TooManyProviderTokenUpdates: "The connection changed its provider token within 20 minutes of the last change.",
  TooManyRequests: "Too many pushes to the same device token, one after the other.",
  InternalServerError: "APNs failed internally: retry later.",
  ServiceUnavailable: "APNs is unavailable: retry later (with back-off).",
  Shutdown: "The APNs server is shutting down: open a new connection.",
  BadRequestPayload: "The body is not valid JSON.",
  FeatureNotEnabled: "Broadcast push is not enabled for this app.",
  MissingChannelId: "apns-channel-id is required.",
  BadChannelId: "The apns-channel-id is not valid.",
  ChannelNotRegistered: "No such channel: it was never created, or was deleted.",
  BadRequestParams: "The request's parameters are not valid.",
  MissingPushType: "apns-push-type is required.",
  CannotCreateChannelConfig: "The app has reached its limit of channels.",
  TopicMismatch: "The topic does not match the app of the key or certificate.",
};

const DROPPED = {
  backgroundPriority10: "A background push sent with priority 10: iOS never delivers it. Send background pushes with apns-priority 5.",
  unreadablePayload: "The body is not a JSON object: APNs accepted it, the device could not read it.",
  serviceNotSetUp: "The app has no part for this push type (or the push went to another of its tokens).",
  notAuthorized: "The user has not allowed the app to show notifications of this kind.",
  noBackgroundMode: "A silent push for an app without the remote-notification background mode.",
  forceQuit: "The user force-quit the app: iOS does not launch it for silent pushes until the user opens it again.",
  voipDeliveryStopped: "The app failed to report VoIP pushes as calls: iOS stopped delivering them.",
  locationNotAlwaysAuthorized: "Location pushes need Always location authorization.",
  missingEntitlement: "The app lacks the entitlement this push type needs.",
  notInChannel: "The app has not joined a Push to Talk channel.",
  widgetReloadBudget: "The widget's reload budget is used up.",
  complicationNotOnWatchFace: "The complication is not on the active watch face.",
  complicationBudget: "The complication's push budget is used up.",
  pushMagicMismatch: "The MDM push's PushMagic does not match the device's.",
};

const DISCARDED = {
  expired: "Its apns-expiration passed while it was held: it is thrown away, never delivered.",
  replaced: "A newer push for the same app replaced it: APNs (and the device) keep one.",
  deliverOnce: "apns-expiration 0 and the device is offline: APNs tries once and does not store it.",
  appUninstalled: "The app was uninstalled or reinstalled while the push was held for it.",
};

const THROTTLED = {
  budgetExhausted: "The app's background budget is used up: iOS holds the push until budget returns.",
  lowPowerMode: "Low power mode is on: iOS holds it until low power mode ends.",
};

const REMOVED = {
  tapped: "the user tapped it",
  actionTapped: "the user tapped one of its actions",
  dismissed: "the user swiped it away",
  clearedAll: "the user cleared Notification Center",
  collapsed: "a newer push with the same apns-collapse-id replaced it",
  limit: "the app has too many entries: the oldest leaves",
  appUninstalled: "the app was uninstalled",
};

export const OBSERVATION_KINDS = [
  "stored", "delivered", "discarded", "throttled", "dropped", "banner", "sound", "badge",
  "notificationCenter", "callback", "appState", "providerRequest", "system", "liveActivity",
];

export const OBSERVATION_REASONS = [...Object.keys(DROPPED), ...Object.keys(DISCARDED), ...Object.keys(THROTTLED), ...Object.keys(REMOVED)];

/** The SDKs' notification-center delegates (docs/SERVICES.md), named by their service. */
const SDK_DELEGATES = { jpushNotificationCenter: "JPush", GeTuiSdkNotificationCenter: "GeTui" };

/** The short name of a callback: `userNotificationCenter:didReceiveNotificationResponse:…` → `didReceiveNotificationResponse`;
 * an SDK's delegate method keeps its service's name (`JPush willPresentNotification`). */
export function callbackName(selector) {
  const parts = (selector || "").split(":").filter(Boolean);
  if (parts.length === 0) return selector;
  if (parts[0] === "application" || parts[0] === "userNotificationCenter") return parts[1] || parts[0];
  if (SDK_DELEGATES[parts[0]]) return `${SDK_DELEGATES[parts[0]]} ${parts[1] || parts[0]}`;
  return parts[0];
}

/** What a JPush or GeTui SDK callback adds: its id, where a message came from, whether it waited. */
export function sdkDetails(sdk) {
  if (!sdk) return [];
  return [
    sdk.registrationID && `id ${sdk.registrationID}`, sdk.clientId && `cid ${sdk.clientId}`,
    sdk.resCode && `resCode ${sdk.resCode}`, sdk.fromGetui === false && "via APNs", sdk.offLine === true && "offline",
  ].filter(Boolean);
}

const fmtTime = (ms) => new Date(ms).toISOString().replace("T", " ").replace(".000Z", "Z");

/** One line for an event in the timeline. */
export function summary(event) {
  if (event.type === "request") {
    const r = event.data;
    const what = r.channelId ? `broadcast ${r.channelId}` : r.pushType || "push";
    return r.status === 200 ? `APNs accepted ${what}` : `APNs refused ${what}: ${r.status} ${r.reason || ""}`.trim();
  }
  if (event.type === "dropped") return event.data.message;
  const o = event.data;
  switch (o.kind) {
    case "stored": return `APNs stored it (device offline) until ${fmtTime(o.expiresAt)}${o.replacing ? ", replacing an older one" : ""}`;
    case "delivered": return `delivered: ${o.pushType}, priority ${o.priority}`;
    case "discarded": return `discarded: ${o.reason}`;
    case "throttled": return `held back: ${o.reason}${o.until ? ` until ${fmtTime(o.until)}` : ""}`;
    case "dropped": return `dropped: ${o.reason}`;
    case "banner": return `banner “${[o.title, o.subtitle, o.body].filter(Boolean).join(" · ")}”${o.actions && o.actions.length ? ` [${o.actions.join(", ")}]` : ""}`;
    case "sound": return `sound ${o.sound}`;
    case "badge": return `badge ${o.badge}`;
    case "notificationCenter": return o.change === "added" ? "added to Notification Center" : `left Notification Center: ${o.reason}`;
    case "callback": {
      const extra = [o.actionIdentifier && o.actionIdentifier.replace("com.apple.UNNotification", "").replace("ActionIdentifier", ""), o.typedText && `“${o.typedText}”`,
        ...sdkDetails(o.sdk)].filter(Boolean).join(", ");
      return `${callbackName(o.callback)} (${o.appState})${extra ? ` ${extra}` : ""}`;
    }
    case "appState": return `app ${o.from} → ${o.to}`;
    case "providerRequest": return `${o.method || ""} ${o.url || ""} ${o.status ?? o.failure ?? ""}`.trim();
    case "system": return `${o.event}: ${o.message || ""}`;
    case "liveActivity": return `Live Activity ${o.event}${o.reason ? `: ${o.reason}` : ""}`;
    default: return o.kind;
  }
}

/** A sentence saying why, for the detail view; null when the summary says it all. */
export function explanation(event) {
  if (event.type === "request") {
    const r = event.data;
    if (r.status === 200) return "APNs accepted the push and hands it to the device.";
    return APNS_REASONS[r.reason] || (r.reason ? `APNs answered ${r.status} ${r.reason}.` : `APNs answered ${r.status}.`);
  }
  if (event.type !== "observation") return null;
  const o = event.data;
  switch (o.kind) {
    case "stored": return "The device is offline. APNs keeps one push per app (the newest) until it expires, and delivers it when the device comes back online.";
    case "dropped": return o.message || DROPPED[o.reason] || null;
    case "discarded": return DISCARDED[o.reason] || null;
    case "throttled": return THROTTLED[o.reason] || null;
    case "notificationCenter": return o.change === "removed" ? `It left Notification Center: ${REMOVED[o.reason] || o.reason}.` : null;
    case "liveActivity": return o.message || null;
    case "system": return o.message || null;
    case "providerRequest": return o.message || null;
    default: return null;
  }
}
