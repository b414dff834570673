"""requests: HTTP calls that write on the other side (POST, PUT, PATCH)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import HTTP_CLAIMS, http_writes

LIBRARIES = (Library("requests", "requests", modules=("requests",)),)

SIDE_EFFECTS = http_writes(
    ("requests", "requests.api"),
    ("requests.Session", "requests.session", "requests.sessions.Session"),
)
CLAIMS = (HTTP_CLAIMS,)
