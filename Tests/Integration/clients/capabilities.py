"""What each client library of the matrix can do, declared here and nowhere else.

test_client_matrix.py collects a case for exactly what a library declares, and every collected
case must pass: nothing turns into a skip at run time. A library that stops doing something it
declares fails; one whose own list of push types (its enum, where it has one) differs from the
declaration fails too (test_the_declared_push_types_are_the_librarys), so the declaration
cannot drift from the pinned version.

This module imports nothing: the test collects from it in its own venv, without the libraries.
"""

from __future__ import annotations

import dataclasses

# What the matrix sends, and with a certificate only the topics certs/client.pem lists
# (Apple: "If a push topic for a specific push type isn't listed ...").
MATRIX_PUSH_TYPES = ("alert", "background", "voip", "complication", "fileprovider", "liveactivity", "location",
                     "pushtotalk", "widgets", "controls")
CERTIFICATE_PUSH_TYPES = ("alert", "background", "voip", "complication")
# The steps that push alerts to the app's token (the first alert, the errors, 300 at once).
ALERT_STEPS = ("first_alert", "unregistered", "bad_token", "expired_token", "concurrent")


@dataclasses.dataclass(frozen=True)
class Capabilities:
    auth: tuple[str, ...]
    # Every push type the library can send, in Apple's spelling (mdm included: the matrix sends none).
    push_types: tuple[str, ...]
    # Fewer push types for one auth mode, e.g. {"certificate": ("voip",)}.
    push_types_by_auth: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # {step: why}: a step whose answer the library does not report (it hides APNs's answer, or its
    # HTTP/2 stack fails on something Apple does). Its case checks that whatever the library did
    # surface is APNs's answer.
    limits: dict[str, str] = dataclasses.field(default_factory=dict)
    # False: the library hands its caller APNs's reason but not a rejection's HTTP status.
    surfaces_status: bool = True
    # False: the library does not hand a 410's timestamp to its caller.
    surfaces_timestamp: bool = True

    def sends(self, auth: str) -> tuple[str, ...]:
        return self.push_types_by_auth.get(auth, self.push_types)

    def matrix_push_types(self, auth: str) -> tuple[str, ...]:
        """The push types the matrix sends through this library with this auth."""
        allowed = CERTIFICATE_PUSH_TYPES if auth == "certificate" else MATRIX_PUSH_TYPES
        return tuple(t for t in MATRIX_PUSH_TYPES if t in self.sends(auth) and t in allowed)

    def steps(self, auth: str) -> tuple[str, ...]:
        """Every step matrix.py runs for this auth: the alert steps when the library sends alerts
        (no provider token to expire with a certificate), then one step per push type."""
        alert = tuple(s for s in ALERT_STEPS if s != "expired_token" or auth == "token") if "alert" in self.sends(auth) else ()
        return alert + tuple(f"push_type:{t}" for t in self.matrix_push_types(auth))


PYAPNS2 = ("alert", "background", "voip", "complication", "fileprovider", "mdm")     # apns2 and its forks
EVERY_TYPE = MATRIX_PUSH_TYPES                                                     # clients that send any header
HIDES = "send() turns every rejection into APNSUnsendableError('Unable to send messages'): no status, reason or timestamp"

CAPABILITIES: dict[str, Capabilities] = {
    # No provider tokens (Server takes a client certificate); a rejection raises
    # errors.<Reason>(reason, apns_id): the HTTP status and the 410 timestamp are dropped.
    "aapns_client": Capabilities(("certificate",), PYAPNS2, surfaces_status=False, surfaces_timestamp=False),
    "aioapns_client": Capabilities(("token", "certificate"), PYAPNS2 + ("liveactivity",)),
    # 2.2's NotificationResult has no timestamp (4.0 added it).
    "aioapns_debian": Capabilities(("token", "certificate"), PYAPNS2 + ("liveactivity",), surfaces_timestamp=False),
    # A rejection is its reason string only (and a 410's timestamp).
    "apns2_original": Capabilities(("token", "certificate"), PYAPNS2, surfaces_status=False),
    "apns2_up": Capabilities(("token", "certificate"), PYAPNS2, surfaces_status=False),
    "compat_fork_apns2": Capabilities(("token", "certificate"), PYAPNS2, surfaces_status=False),
    "curl_cli": Capabilities(("token", "certificate"), EVERY_TYPE),
    "gobiko_apns_client": Capabilities(("token",), PYAPNS2, surfaces_status=False, surfaces_timestamp=False),
    "httpx_h2": Capabilities(("token", "certificate"), EVERY_TYPE),
    # Certificate auth: only the deprecated VoIPCertificateClient, so only voip pushes. A rejection
    # is an exception named after its reason, with the body (the 410 timestamp).
    "kalyke": Capabilities(("token", "certificate"), ("alert", "background", "location", "voip", "complication", "fileprovider",
                                                       "mdm", "liveactivity"),
                           push_types_by_auth={"certificate": ("voip",)}, surfaces_status=False),
    "mopyapns_client": Capabilities(("token", "certificate"), PYAPNS2),
    "nghttp_cli": Capabilities(("token", "certificate"), EVERY_TYPE),
    # It sends no apns-push-type header at all: its pushes are alerts by APNs's default for a request
    # without one. send() turns every rejection into APNSUnsendableError("Unable to send messages").
    "pushjack_http2_client": Capabilities(("token",), ("alert",), surfaces_status=False, surfaces_timestamp=False, limits={
        "unregistered": HIDES, "bad_token": HIDES, "expired_token": HIDES,
        # After a rejection APNs lowers the connection's stream limit to 1 until the next accepted
        # push (as Apple does: APNS-COMPATIBILITY.md, stream limits); hyper raises instead of waiting.
        "concurrent": "after a rejection, hyper raises TooManyStreamsError ('Max outbound streams is 1') instead of "
                      "waiting for APNs to raise the stream limit again, so some of 300 concurrent pushes fail",
    }),
    "pushlab_send": Capabilities(("token", "certificate"), EVERY_TYPE),
    "pyapns_client2": Capabilities(("token",), PYAPNS2),
    "pyapns_client3": Capabilities(("token", "certificate"), PYAPNS2),
    # push_type is a free string; these are the ones its README lists ("Push Notification Types").
    # A 410 raises APNSTokenError("Token is no longer valid: <token>"): no reason, no timestamp.
    "simple_apns_client": Capabilities(("token",), PYAPNS2 + ("location",), surfaces_timestamp=False, limits={
        "unregistered": "reports any 410 as 'Token is no longer valid': the status, without reason or timestamp",
        "expired_token": "reports any 403 as 'Certificate or token is not valid': the status, without the reason",
    }),
}
