"""requests: HTTP calls that create something on the other side (POST)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import HTTP_CLAIMS, http_posts

LIBRARIES = (Library("requests", "requests", modules=("requests",)),)

SIDE_EFFECTS = (
    http_posts(
        ("requests", "requests.api"),
        ("requests.Session", "requests.session", "requests.sessions.Session"),
    ),
)
CLAIMS = (HTTP_CLAIMS,)
