"""apns2 0.7.2, the original PyAPNs2, on hyper-up instead of hyper 0.7.0 and on PyJWT 1.x.

hyper 0.7.0 cannot be imported on Python >= 3.10 (`from collections import Iterable`); hyper-up
is a fork that installs the same `hyper` package. apns2 0.7.2 calls `.decode('ascii')` on
jwt.encode()'s result, so it needs PyJWT < 2 (as its metadata says). Its client is the code of
apns2-up and compat-fork-apns2 (only the .decode() and Payload's subtitle differ): one adapter.
"""

from adapters.apns2_up import LIBRARY_PUSH_TYPES, Client  # noqa: F401

NAME = "apns2"
