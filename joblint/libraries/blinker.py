"""blinker (1.8, `blinker/base.py`): `Signal.send` calls every connected
receiver there and then, in the sender's thread (Flask's signals are
blinker's)."""

from __future__ import annotations

from joblint.libraries.base import SignalApi

SIGNAL_APIS = (
    SignalApi(
        connect_methods=("connect", "connect_via"),
        send_methods=("send",),
    ),
)
