"""The dashboard in a real browser: headless Chromium driven over WebDriver (chromedriver).

Each step is photographed into Tests/Integration/artifacts/dashboard/ (CI keeps the folder).
PUSHLAB_DOCS_SCREENSHOT=1 also copies the overview picture to docs/dashboard.png, the
README's first image.

Debian's chromium and chromium-driver (scripts/install-deps.sh installs them) are required;
without them these tests are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import background_phones_scenario, derived_scenario, tool
from world import CERTS, DEV_UNREGISTERED_TOKEN, REPO, TOPIC, dev_token, provider_token

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "dashboard"
WINDOW = (1600, 1000)
WAIT = 20.0

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="the dashboard's browser tests need Debian's chromium and chromium-driver (scripts/install-deps.sh installs them)",
)


def events_dropped(server) -> int:
    """`pushlab_events_dropped` from /metrics: events /v1/events clients read too slowly to get."""
    with urllib.request.urlopen(server.control_url + "/metrics", timeout=30) as response:
        found = re.search(r"^pushlab_events_dropped(?:\{[^}]*\})? ([0-9.e+]+)$", response.read().decode(), re.M)
    return int(float(found.group(1))) if found else 0


def control(server, method: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.control_url + path, data=data, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture
def browser():
    yield from headless_chromium()


def headless_chromium():
    """Debian's Chromium through chromedriver, for as long as the generator runs."""
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium must not look for drivers online
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={WINDOW[0]},{WINDOW[1]}", "--force-device-scale-factor=1", "--hide-scrollbars"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    # The page's own size, whatever the headless window's frame takes.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver, condition, what: str, timeout: float = WAIT):
    """Polls `condition(driver)` until it is truthy; fails naming `what` and with a screenshot."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition(driver)
            if value:
                return value
        except Exception as error:  # an element re-rendered between find and read
            last_error = error
        time.sleep(0.1)
    driver.save_screenshot(str(ARTIFACTS / f"failed-{what.replace(' ', '-')[:60]}.png"))
    raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))


def css(driver, selector: str):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def one(driver, selector: str):
    return wait_for(driver, lambda d: (css(d, selector) or [None])[0], selector)


def text_of(driver, selector: str) -> str:
    """The text of the first element `selector` finds, once there is one: read in one step, as
    the phones are redrawn whenever an event names them."""
    return wait_for(driver, lambda d: d.execute_script("return document.querySelector(arguments[0])?.textContent", selector), selector)


def click_first(driver, selector: str) -> bool:
    """Clicks the first element `selector` finds; false when there is none yet."""
    found = css(driver, selector)
    if found:
        found[0].click()
    return bool(found)


def click(driver, selector: str):
    """Clicks the element once it is there (elements are redrawn as events arrive)."""
    wait_for(driver, lambda d: click_first(d, selector), f"clickable {selector}")


def click_until(driver, selector: str, shows: str):
    """Clicks until `shows` is there, and returns it: a redraw between finding the element and
    the click (events arrive while the page is busy) can swallow a click."""
    def attempt(d):
        shown = css(d, shows)
        if shown:
            return shown[0]
        click_first(d, selector)
        return False
    return wait_for(driver, attempt, f"{shows} after clicking {selector}")


def timeline_rows(driver, kind: str) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll(arguments[0])].map((row) => row.textContent)", f".row[data-kind='{kind}']")


def shoot(driver, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def open_dashboard(driver, server, fragment: str = ""):
    driver.get(server.control_url + "/" + fragment)
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the page to start")
    wait_for(driver, lambda d: css(d, "#live[data-state='live']"), "the event stream")


def send_from_form(driver, device: str, template: str = "Alert") -> str:
    """Fills the Send form for `device`'s app, sends, and returns the apns-id APNs answered."""
    click(driver, "[data-tab='send']")
    field = one(driver, "#send-device")
    field.clear()
    field.send_keys(device)
    driver.execute_script("arguments[0].dispatchEvent(new Event('change'))", field)
    wait_for(driver, lambda d: d.execute_script("return document.getElementById('send-app').options.length") > 0, "the app list")
    click(driver, f"[data-template='{template}']")
    previous = driver.execute_script("return document.getElementById('send-answer').textContent")
    click(driver, "#send-button")
    wait_for(driver, lambda d: d.execute_script("return document.getElementById('send-answer').textContent") not in ("", previous)
             and not d.execute_script("return document.getElementById('send-button').disabled"), "APNs's answer")
    status = driver.execute_script("const s = document.querySelector('.answer-status'); return [s.dataset.status, s.parentElement.textContent]")
    assert status[0] == "200", status[1]
    apns_id = driver.execute_script(
        "for (const row of document.querySelectorAll('#send-answer tr')) if (row.cells[0].textContent === 'apns-id') return row.cells[1].textContent;")
    assert apns_id, "the answer shows no apns-id"
    return apns_id


def test_send_tap_offline_and_back(fresh_server, browser):
    """Load, send from the form, see the banner on ann's phone, tap it and see the callback, go
    offline and see the push stored, come back and see it delivered."""
    server = fresh_server("--clock", "manual", "--clock-start", "2026-01-01T09:41:00Z", scenario=None)
    driver = browser
    open_dashboard(driver, server)
    for device in ("ann", "ben", "cara", "dan"):
        one(driver, f".phone-card[data-device='{device}'] .phone")
    assert css(driver, ".phone-card[data-device='dan'] [data-switch='online'][aria-pressed='false']"), "dan is offline in the scenario"
    shoot(driver, "01-loaded")

    apns_id = send_from_form(driver, "ann")
    assert "--http2" in text_of(driver, "#send-curl")
    banner = text_of(driver, f".phone-card[data-device='ann'] .banner[data-apns-id='{apns_id}']")
    assert "Cara" in banner and "Lunch at 1?" in banner
    assert not css(driver, f".phone-card[data-device='ben'] .banner[data-apns-id='{apns_id}']"), "the banner is on ann's phone only"
    wait_for(driver, lambda d: any("APNs accepted alert" in t for t in timeline_rows(d, "request")), "the request in the timeline")
    shoot(driver, "02-banner")

    click(driver, f".phone-card[data-device='ann'] .banner[data-apns-id='{apns_id}'] .banner-tap")
    wait_for(driver, lambda d: any("didReceiveNotificationResponse" in t for t in timeline_rows(d, "callback")), "the tap's callback in the timeline")
    callbacks = control(server, "GET", f"/v1/devices/ann/observations?kind=callback")["observations"]
    assert any(o.get("notificationId") == apns_id and "didReceiveNotificationResponse" in o["callback"] for o in callbacks)
    shoot(driver, "03-tapped")

    # The tap brought the app on screen; the home bar sends it back, then ann goes offline.
    click(driver, ".phone-card[data-device='ann'] .home-bar")
    wait_for(driver, lambda d: css(d, ".phone-card[data-device='ann'] .phone[data-mode='home']"), "ann's home screen")
    click(driver, ".phone-card[data-device='ann'] [data-switch='online']")
    wait_for(driver, lambda d: css(d, ".phone-card[data-device='ann'] [data-switch='online'][aria-pressed='false']"), "ann offline")
    stored_id = send_from_form(driver, "ann")
    one(driver, ".phone-card[data-device='ann'] [data-held='stored']")
    wait_for(driver, lambda d: any("APNs stored it" in t for t in timeline_rows(d, "stored")), "the stored push in the timeline")
    assert not css(driver, f".banner[data-apns-id='{stored_id}']"), "an offline phone shows no banner"
    shoot(driver, "04-stored")

    click(driver, ".phone-card[data-device='ann'] [data-switch='online']")
    one(driver, f".phone-card[data-device='ann'] .banner[data-apns-id='{stored_id}']")
    wait_for(driver, lambda d: not css(d, ".phone-card[data-device='ann'] [data-held='stored']"), "the stored push delivered")
    delivered = control(server, "GET", "/v1/devices/ann/observations?kind=delivered")["observations"]
    assert [o["notificationId"] for o in delivered] == [apns_id, stored_id]
    shoot(driver, "05-delivered")

    # The push's story, in the detail view.
    click(driver, ".row[data-kind='stored']")
    detail = wait_for(driver, lambda d: (lambda t: t if "What the device did" in t and "delivered" in t else None)(text_of(d, "#detail:not([hidden])")), "the push's detail")
    assert "The device is offline" in detail
    assert "apns-push-type" in detail and "Lunch at 1?" in detail
    shoot(driver, "06-detail")


def test_sdk_callbacks_on_the_phone_and_in_the_timeline(fresh_server, browser):
    """The GeTui push lab's second case (docs/SERVICES.md): a push through GeTui to an app in the
    background, a tap on the banner; the phone's card and the timeline show GeTui's callbacks,
    the one forwarded for the tap and the transmission handed over offline."""
    server = fresh_server("--clock", "manual", "--clock-start", "2026-01-01T09:41:00Z",
                          scenario=REPO / "scenarios" / "problems" / "getui-payload-seen-twice.yaml")
    driver = browser
    open_dashboard(driver, server)
    one(driver, ".phone-card[data-device='background-tap'] .phone")
    control(server, "PATCH", "/v1/devices/background-tap/apps/com.pushlab.demo", {"state": "background"})
    called = control(server, "POST", "/v1/services/getui/call", {
        "app": "GtLabApp0001", "path": "/push/single/cid", "body": {
            "request_id": "dashboard-0001", "audience": {"cid": ["0a0000000000000000000000000000a2"]},
            "push_message": {"transmission": "{\"orderId\":42}"},
            "push_channel": {"ios": {"type": "notify", "aps": {"alert": {"title": "Order shipped", "body": "Tuesday"}}}}}})
    assert called["status"] == 200, called
    one(driver, ".phone-card[data-device='background-tap'] .banner")
    click(driver, ".phone-card[data-device='background-tap'] .banner .banner-tap")
    wait_for(driver, lambda d: any("GeTuiSdkDidReceiveNotification" in t for t in timeline_rows(d, "callback")), "the forwarded tap in the timeline")
    wait_for(driver, lambda d: any("GeTuiSdkDidReceiveSlience" in t and "offline" in t for t in timeline_rows(d, "callback")),
             "the transmission handed over offline, in the timeline")
    card = wait_for(driver, lambda d: (lambda t: t if "GeTuiSdkDidReceiveSlience" in t else None)(
        text_of(d, ".phone-card[data-device='background-tap'] .app-calls")), "GeTui's callbacks on the phone")
    assert "offline" in card, card
    shoot(driver, "07-sdk-callbacks")


def test_overview_picture(fresh_server, browser):
    """The README's picture: phones in several states, a banner with actions, a Live Activity,
    the timeline and an answer. Written to the artifacts; with PUSHLAB_DOCS_SCREENSHOT=1 also
    to docs/dashboard.png."""
    server = fresh_server("--clock", "manual", "--clock-start", "2026-01-01T09:41:00Z", scenario=None)
    control(server, "POST", "/v1/apps", {"bundleId": "com.pushlab.delivery", "teamId": "TEAMPUSHLB"})
    control(server, "POST", "/v1/devices", {
        "id": "eve", "name": "Eve's iPhone", "locked": True,
        "apps": [{"bundleId": "com.pushlab.delivery", "state": "foreground",
                  "liveActivities": {"attributesTypes": ["DeliveryAttributes"]}},
                 {"bundleId": "com.pushlab.demo", "state": "background"}]})
    control(server, "POST", "/v1/devices/eve/apps/com.pushlab.delivery/activities",
            {"attributesType": "DeliveryAttributes", "attributes": {"order": "42"},
             "contentState": {"eta": "9:55", "stops": 2}, "pushType": "token"})
    control(server, "PATCH", "/v1/devices/eve/apps/com.pushlab.delivery", {"state": "background"})
    control(server, "PATCH", "/v1/devices/dan", {"locked": True})
    driver = browser
    open_dashboard(driver, server, "#devices=ann,cara,dan,eve")
    send_from_form(driver, "cara")
    send_from_form(driver, "dan")
    send_from_form(driver, "eve")
    send_from_form(driver, "ann", template="Actions")
    one(driver, ".phone-card[data-device='ann'] .banner .action[data-action='REPLY']")
    click(driver, ".row[data-kind='banner']")
    one(driver, "#detail:not([hidden])")
    time.sleep(0.5)  # the banner's slide-in
    path = shoot(driver, "overview")
    if os.environ.get("PUSHLAB_DOCS_SCREENSHOT") == "1":
        shutil.copyfile(path, REPO / "docs" / "dashboard.png")


def test_an_action_with_text_input(fresh_server, browser):
    """Reply from the banner: the typed text reaches the app's callback."""
    server = fresh_server("--clock", "manual", scenario=None)
    driver = browser
    open_dashboard(driver, server)
    apns_id = send_from_form(driver, "ann", template="Actions")
    field = click_until(driver, f".phone-card[data-device='ann'] .banner[data-apns-id='{apns_id}'] .action[data-action='REPLY']",
                        ".phone-card[data-device='ann'] .banner .action-text")
    field.send_keys("On my way")
    click(driver, ".phone-card[data-device='ann'] .banner .action-send")
    wait_for(driver, lambda d: any("On my way" in t for t in timeline_rows(d, "callback")), "the typed text in the timeline")
    callbacks = control(server, "GET", "/v1/devices/ann/observations?kind=callback")["observations"]
    assert any(o.get("actionIdentifier") == "REPLY" and o.get("typedText") == "On my way" for o in callbacks)
    shoot(driver, "07-reply")


def test_a_payload_that_is_no_json_object_goes_as_written(fresh_server, browser):
    """`null` and text that is not JSON reach APNs as the body, as a provider would send them,
    and the form shows APNs's answer: it sends no null field, which the control API refuses."""
    server = fresh_server("--clock", "manual", scenario=None)
    driver = browser
    open_dashboard(driver, server)
    send_from_form(driver, "ann")
    for text in ("null", "not JSON"):
        driver.execute_script("document.getElementById('send-answer').textContent = '';"
                              "const field = document.getElementById('send-payload'); field.value = arguments[0];"
                              "field.dispatchEvent(new Event('input'))", text)
        click(driver, "#send-button")
        wait_for(driver, lambda d: d.execute_script("return document.getElementById('send-answer').textContent")
                 and not d.execute_script("return document.getElementById('send-button').disabled"), f"APNs's answer to {text}")
        answer = driver.execute_script("const s = document.querySelector('#send-answer .answer-status'); return s && [s.dataset.status, s.parentElement.textContent]")
        assert answer and answer[0], f"{text}: {answer}"
        sent = json.loads(driver.execute_script("return document.querySelector('#send-answer pre.json').textContent"))
        assert sent["payload"] == text, sent


def test_answer_time_percentiles_come_from_the_histogram(fresh_server, browser):
    """The Health tab reads /metrics in the page: its parser and percentiles, on known numbers."""
    server = fresh_server("--clock", "manual", scenario=None)
    driver = browser
    open_dashboard(driver, server)
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/dashboard/prometheus.js").then((m) => {
          const text = [
            '# TYPE pushlab_apns_answer_seconds histogram',
            'pushlab_apns_answer_seconds_bucket{le="0.001"} 50',
            'pushlab_apns_answer_seconds_bucket{le="0.01"} 90',
            'pushlab_apns_answer_seconds_bucket{le="0.1"} 100',
            'pushlab_apns_answer_seconds_bucket{le="+Inf"} 100',
            'pushlab_apns_requests_total{environment="development",status="200",reason=""} 97',
            'pushlab_apns_requests_total{environment="production",status="410",reason="Unregistered"} 3',
            'pushlab_apns_requests_total{environment="production",status="503",reason="ServiceUnavailable"} 0',
          ].join("\\n");
          const n = m.healthNumbers(m.parseMetrics(text));
          done({ p50: m.quantile(n.buckets, 0.5), p90: m.quantile(n.buckets, 0.9), p95: m.quantile(n.buckets, 0.95),
                 none: m.quantile([], 0.5), requests: n.requests, answers: [...n.byAnswer.entries()],
                 window: m.bucketDelta(n.buckets, n.buckets.map((b) => ({ le: b.le, count: b.count / 2 }))).map((b) => b.count),
                 words: [m.duration(0.000038), m.duration(0.0021), m.duration(1.2)] });
        });""")
    assert result["p50"] == pytest.approx(0.001)
    assert result["p90"] == pytest.approx(0.01)
    assert result["p95"] == pytest.approx(0.055)   # halfway through the 10-100 ms bucket
    assert result["none"] is None
    assert result["requests"] == 100
    assert result["answers"] == [["200|", 97], ["410|Unregistered", 3]]
    assert result["window"] == [25, 45, 50, 50]
    assert result["words"] == ["38 µs", "2.10 ms", "1.20 s"]


def test_a_control_token_is_asked_for_once(fresh_server, browser):
    """With --control-token the page loads without it, asks for it, and sends it with every request."""
    server = fresh_server("--control-token", "s3cret", scenario=None)
    driver = browser
    driver.get(server.control_url + "/")
    field = one(driver, "#token-dialog[open] #token-input")
    field.send_keys("s3cret")
    click(driver, "#token-dialog button")
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), "the page to start")
    wait_for(driver, lambda d: css(d, "#live[data-state='live']"), "the event stream, with the token")
    one(driver, ".phone-card[data-device='ann'] .phone")
    assert not css(driver, "#token-dialog[open]"), "asked once"


def test_health_shows_faults_and_clears_them(fresh_server, browser):
    server = fresh_server("--clock", "manual", scenario=None)
    control(server, "POST", "/v1/faults", {"respond": {"reason": "ServiceUnavailable"}, "count": 1})
    driver = browser
    open_dashboard(driver, server)
    click(driver, "[data-tab='health']")
    one(driver, "[data-fault='fault-1']")
    field = one(driver, "#send-device")
    assert field is not None
    click(driver, "[data-tab='send']")
    field.clear()
    field.send_keys("ann")
    driver.execute_script("arguments[0].dispatchEvent(new Event('change'))", field)
    click(driver, "#send-button")
    assert "ServiceUnavailable" in text_of(driver, ".answer-status[data-status='503']")
    click(driver, "[data-tab='health']")
    wait_for(driver, lambda d: "ServiceUnavailable" in text_of(d, ".answers"), "the 503 among the answers")
    control(server, "POST", "/v1/faults", {"delayMs": 10, "topic": "com.pushlab.demo"})
    one(driver, "[data-fault='fault-2']")
    shoot(driver, "08-health")
    click(driver, "#faults-clear")
    wait_for(driver, lambda d: not css(d, "[data-fault]"), "the fault rules cleared")
    assert control(server, "GET", "/v1/faults")["faults"] == []


def test_a_burst_of_events(fresh_server, browser, tmp_path):
    """6,000 pushes to 600 phones at 1,000 a second, about 36,000 events: the page takes them in
    batches, keeps the newest 20,000 (or, on a machine too busy for it to keep up, accounts for
    the events the server dropped for it), draws only the rows in view, and its main thread keeps
    answering (a timer's delay stays far below a second)."""
    phones = 600
    scenario = background_phones_scenario(tmp_path / "burst.yaml", "burst", phones, prefix="cc", id_prefix="burst")
    uris = tmp_path / "uris.txt"
    body = tmp_path / "body.json"
    body.write_text('{"aps":{"alert":{"title":"Burst","body":"one of many"},"sound":"default","badge":1}}')
    server = fresh_server("--db", ":memory:", scenario=scenario)
    uris.write_text("".join(f"https://127.0.0.1:{server.dev_port}/3/device/cc{format(i, 'x').rjust(62, '0')}\n" for i in range(phones)))
    driver = browser
    open_dashboard(driver, server)
    driver.execute_script("""
        window.lag = 0;
        let last = performance.now();
        setInterval(() => { const now = performance.now(); window.lag = Math.max(window.lag, now - last - 50); last = now; }, 50);""")
    done = subprocess.run([tool("h2load"), "-t1", "-c4", "-m50", "--rps", "250", "-n", str(phones * 10), "-i", str(uris),
                           "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
                           "-d", str(body)], capture_output=True, text=True, timeout=120)
    assert f"{phones * 10} succeeded" in done.stdout, done.stdout + done.stderr
    # A page that reads too slowly (a busy machine) is sent a `dropped` notice instead of the
    # events its buffer had no room for: then what it shows and what it was told it lost add up.
    quiet = {"text": None, "since": time.monotonic()}

    def full_or_settled(d):
        text = text_of(d, "#timeline-count")
        if "newest 20,000 kept" in text:
            return "full"
        if text != quiet["text"]:
            quiet.update(text=text, since=time.monotonic())
            return None
        return "settled" if time.monotonic() - quiet["since"] > 3 and events_dropped(server) > 0 else None

    outcome = wait_for(driver, full_or_settled, "a full timeline buffer, or every event either shown or reported dropped", timeout=90)
    if outcome == "settled":
        shown = int(re.sub(r"[^0-9]", "", text_of(driver, "#timeline-count").split(" events")[0]))
        assert shown + events_dropped(server) >= 20_000, f"{shown} shown, {events_dropped(server)} dropped"
    rows = driver.execute_script("return document.querySelectorAll('#timeline-rows .row').length")
    assert 0 < rows < 150, f"{rows} rows in the page: only those in view should exist"
    lag = driver.execute_script("return window.lag")
    assert lag < 2000, f"the page's main thread was blocked for {lag:.0f} ms"
    shoot(driver, "10-burst")


def test_a_hundred_thousand_devices(fresh_server, browser, tmp_path):
    """100,000 devices: the page lists one page of them, and search finds one."""
    scenario = tmp_path / "many.yaml"
    scenario.write_text(f"""name: many
keys:
  - keyId: PUSHLAB001
    teamId: TEAMPUSHLB
    privateKey: {CERTS}/AuthKey_PUSHLAB001.p8
apps:
  - bundleId: com.pushlab.demo
    teamId: TEAMPUSHLB
generatedDevices:
  - count: 100000
    bundleId: com.pushlab.demo
    prefix: bb
    idPrefix: load
    state: background
""")
    server = fresh_server("--db", ":memory:", scenario=scenario)
    driver = browser
    open_dashboard(driver, server)
    wait_for(driver, lambda d: text_of(d, "#device-total") == "100,000 devices", "the device count")
    assert len(css(driver, ".device-row")) == 50, "one page of rows, not one per device"
    assert len(css(driver, ".phone-card")) == 4
    elements = driver.execute_script("return document.getElementsByTagName('*').length")
    assert elements < 5000, f"{elements} elements for 100,000 devices"
    search = one(driver, "#device-search")
    search.send_keys("load-99999")
    wait_for(driver, lambda d: [r.get_attribute("data-device") for r in css(d, ".device-row")] == ["load-99999"], "the search's one result")
    assert text_of(driver, "#device-total") == "1 match"
    click(driver, ".device-row[data-device='load-99999']")
    one(driver, ".phone-card[data-device='load-99999'] .phone")
    token = "bb" + format(99999, "x").rjust(62, "0")
    search.clear()
    search.send_keys(token[:20])
    wait_for(driver, lambda d: [r.get_attribute("data-device") for r in css(d, ".device-row")][:1] == ["load-0"], "a search by token prefix")
    shoot(driver, "09-many-devices")


def push_on_a_connection_each(server, tokens: list[str], status: int = 200) -> None:
    """One push to each token, each on a connection of its own (a curl per push): the pattern
    Apple warns against (\"reuse a connection as long as possible\")."""
    for i, token in enumerate(tokens):
        done = subprocess.run([tool("curl"), "-sS", "--http2", "--max-time", "20", "--cacert", str(CERTS / "ca.pem"),
                               "-o", "/dev/null", "-w", "%{http_code}", "-H", f"authorization: bearer {provider_token()}",
                               "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
                               "-d", json.dumps({"aps": {"alert": f"push {i}"}}), f"https://127.0.0.1:{server.dev_port}/3/device/{token}"],
                              cwd=REPO, capture_output=True, text=True, timeout=60)
        assert done.stdout == str(status), done.stdout + done.stderr


def report_requests(driver, provider: str = "key:PUSHLAB001") -> int | None:
    """The Requests figure of a provider in the Report tab, or None while it is not shown."""
    text = driver.execute_script("return document.querySelector(arguments[0])?.textContent",
                                 f".report-provider[data-provider='{provider}'] tr[data-stat='requests'] td")
    return int(text.split()[0].replace(",", "")) if text else None


def report_connections(driver) -> list[list[str]]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#report-connections tbody tr')].map((row) => [...row.cells].map((c) => c.textContent))")


def test_the_report_tab_follows_a_provider_live(fresh_server, browser, tmp_path):
    """The Report tab: it explains how to start recording, starts it, and then, without a reload,
    follows a provider that opens a connection per push and pushes again after a 410: its
    figures, its findings (with Apple's rule, the source and examples) and its connections, an
    open one and one closed by GOAWAY IdleTimeout; Clear and Stop recording."""
    from h2.events import ConnectionTerminated
    from h2util import H2Client

    server = fresh_server(scenario=derived_scenario(tmp_path, idleTimeoutSeconds=3))
    driver = browser
    open_dashboard(driver, server)
    click(driver, "[data-tab='report']")
    one(driver, "#report-state[data-recording='false']")
    empty = text_of(driver, "#report-empty")
    assert "Not recording" in empty and "pushlab serve --report" in empty and "PUT /v1/report" in empty, empty
    assert "tab=report" in driver.execute_script("return location.hash")
    assert control(server, "GET", "/v1/report")["recording"] is False
    shoot(driver, "11-report-not-recording")

    click(driver, "#report-toggle")
    one(driver, "#report-state[data-recording='true']")
    wait_for(driver, lambda d: "No requests yet" in text_of(d, "#report-empty"), "the recording empty state")
    assert control(server, "GET", "/v1/report")["recording"] is True
    assert text_of(driver, "#report-toggle") == "Stop recording"
    driver.execute_script("window.sameReportPage = true")   # gone after a reload

    # A connection per push, and pushes again to a token answered 410.
    push_on_a_connection_each(server, [dev_token(i) for i in range(4)])
    push_on_a_connection_each(server, [DEV_UNREGISTERED_TOKEN] * 2, status=410)
    wait_for(driver, lambda d: report_requests(d) == 6, "6 requests in the report")
    per_push = text_of(driver, ".report-finding[data-finding='connection-per-push']")
    assert "Opened a connection for a push or two" in per_push and "6 connections" in per_push, per_push
    assert "Reuse a connection as long as possible" in per_push, per_push
    assert "connection 1: 1 request in" in per_push, "the finding's examples"
    href = driver.execute_script("return document.querySelector(\".report-finding[data-finding='connection-per-push'] a.report-source\").href")
    assert href == "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns", href
    after410 = text_of(driver, ".report-finding[data-finding='pushed-after-410']")
    assert "1 request" in after410 and "410" in after410, after410
    assert "Findings (2)" in text_of(driver, "#report-findings h3")
    answers = text_of(driver, ".report-provider[data-provider='key:PUSHLAB001'] tr[data-stat='answers']")
    assert "200 4" in answers and "410 2" in answers and "2 × Unregistered" in answers, answers
    assert "1 push to tokens already answered 410" in text_of(driver, "tr[data-stat='after410']")
    assert "6 opened · 0 open" in text_of(driver, "tr[data-stat='connections']")
    assert "p50" in text_of(driver, "tr[data-stat='latency']")
    wait_for(driver, lambda d: len(report_connections(d)) == 6, "6 connections in the table")
    rows = report_connections(driver)
    assert all(row[1] == "key:PUSHLAB001" and row[2] == "dev" and row[3] == "1" and row[6] == "closed" for row in rows), rows
    assert [row[0] for row in rows] == sorted((row[0] for row in rows), key=int, reverse=True), "newest first"
    shoot(driver, "12-report-findings")

    # A connection that stays open, then idles until APNs sends GOAWAY IdleTimeout: seen live.
    idle = H2Client(server.dev_port)
    try:
        idle.authenticate()
        wait_for(driver, lambda d: report_requests(d) == 7, "the 7th request, without a reload")
        wait_for(driver, lambda d: any(row[6] == "open" for row in report_connections(d)), "the open connection")
        assert "1 open" in text_of(driver, "tr[data-stat='connections']")
        shoot(driver, "13-report-open-connection")
        try:
            idle.wait_for(lambda: any(isinstance(e, ConnectionTerminated) for e in idle.events), 10, "GOAWAY IdleTimeout")
        except ConnectionError:
            pass   # closed in the same read as the GOAWAY
        assert any(isinstance(e, ConnectionTerminated) for e in idle.events), "no GOAWAY on the idle connection"
    finally:
        idle.close()
    wait_for(driver, lambda d: any(row[6] == "GOAWAY IdleTimeout" for row in report_connections(d)), "the connection's GOAWAY IdleTimeout")

    push_on_a_connection_each(server, [dev_token(i) for i in range(4, 7)])
    wait_for(driver, lambda d: report_requests(d) == 10 and len(report_connections(d)) == 10, "10 requests on 10 connections, without a reload")
    wait_for(driver, lambda d: "10 connections" in text_of(d, ".report-finding[data-finding='connection-per-push']"), "the finding's new count")
    assert driver.execute_script("return window.sameReportPage") is True, "the page was reloaded"
    report = control(server, "GET", "/v1/report")
    assert report["providers"][0]["requests"] == 10 and report["findings"] == 2, report
    shoot(driver, "14-report-live")

    click(driver, "#report-clear")
    wait_for(driver, lambda d: "No requests yet" in text_of(d, "#report-empty"), "the cleared report")
    assert control(server, "GET", "/v1/report")["providers"] == []
    click(driver, "#report-toggle")
    one(driver, "#report-state[data-recording='false']")
    assert control(server, "GET", "/v1/report")["recording"] is False

    # The address names the tab: opened from it, the page shows the report straight away.
    driver.get("about:blank")
    open_dashboard(driver, server, "#tab=report")
    assert driver.execute_script("return window.sameReportPage") is None, "a new page"
    one(driver, "#tab-report:not([hidden]) #report-state[data-recording='false']")
    assert text_of(driver, "#report-toggle") == "Start recording"
