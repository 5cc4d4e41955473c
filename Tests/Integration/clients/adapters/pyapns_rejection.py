"""What pyapns-client 2 and 3 share: a rejection is an exception named after APNs's reason."""

from __future__ import annotations

from matrix import Answer


def answer_of_rejection(rejection) -> Answer:
    """The exception class is f"{reason}Exception" (pyapns_client looks it up by that name)."""
    if rejection.status_code is None:      # APNSConnectionException: no answer at all
        raise rejection
    return Answer(status=rejection.status_code, reason=type(rejection).__name__.removesuffix("Exception"),
                  timestamp=getattr(rejection, "timestamp", None), apns_id=rejection.apns_id)
