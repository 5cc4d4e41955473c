"""Schemathesis hooks for the schema run of test_openapi.py (loaded through SCHEMATHESIS_HOOKS)."""

import schemathesis


@schemathesis.hook.apply_to(method="PUT", path="/v1/stand-in/rules")
def map_body(context, body):
    """Stand-in rules the API takes, made quick and quiet: a delay (up to 600 s; the run's
    requests wait 20 s) becomes at most 50 ms, and a 5xx status its 2xx twin, so that a 5xx from
    /stand-in/… is the server's own failure, never an answer it was told to give. Values the API
    refuses stay as generated, so the run still sees them refused."""
    rules = body.get("rules") if isinstance(body, dict) else None
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict):
            continue
        delay, status = rule.get("delaySeconds"), rule.get("status")
        if isinstance(delay, (int, float)) and not isinstance(delay, bool) and 0 <= delay <= 600:
            rule["delaySeconds"] = min(delay, 0.05)
        if isinstance(status, int) and not isinstance(status, bool) and 500 <= status <= 599:
            rule["status"] = status - 300
    return body


@schemathesis.hook.apply_to(method="POST", path="/v1/faults")
def map_body(context, body):
    """Fault rules the API takes, made quick: a delay (up to an hour; POST /v1/send waits 30 s for
    its answer, the run's requests 20 s) becomes at most 50 ms, so that a send held by a rule
    still answers within the run's time. Values the API refuses stay as generated."""
    delay = body.get("delayMs") if isinstance(body, dict) else None
    if isinstance(delay, int) and not isinstance(delay, bool) and 0 <= delay <= 3_600_000:
        body["delayMs"] = min(delay, 50)
    return body


@schemathesis.hook.apply_to(method="PUT", path="/v1/latency")
def map_body(context, body):
    """Latency profiles the API takes, made quick: every distribution's milliseconds (up to an
    hour, a day for goAway.after) become at most 5 ms, and failure rates at most 1%, so that the
    run's later pushes and sends still answer within its time. Values the API refuses stay as
    generated."""
    if not isinstance(body, dict):
        return body

    def shorten(distribution):
        if not isinstance(distribution, dict):
            return
        for key in ("ms", "minMs", "maxMs", "p50Ms", "p99Ms"):
            value = distribution.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 86_400_000:
                distribution[key] = min(value, 5)

    for key in ("development", "production", "both", "connectionStart"):
        shorten(body.get(key))
    go_away = body.get("goAway")
    if isinstance(go_away, dict):
        shorten(go_away.get("after"))
    for key in ("internalServerErrorRate", "serviceUnavailableRate"):
        value = body.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
            body[key] = min(value, 0.01)
    return body
