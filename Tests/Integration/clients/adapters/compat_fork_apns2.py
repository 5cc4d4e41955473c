"""compat-fork-apns2 0.8.0: PyAPNs2's master for PyJWT 2, on hyper-up instead of hyper 0.7.0.

hyper 0.7.0 cannot be imported on Python >= 3.10 (`from collections import Iterable`); hyper-up
is a fork that installs the same `hyper` package. Its `apns2` package is byte for byte apns2-up's:
one adapter.
"""

from adapters.apns2_up import LIBRARY_PUSH_TYPES, Client  # noqa: F401

NAME = "compat-fork-apns2"
