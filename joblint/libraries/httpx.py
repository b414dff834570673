"""httpx: HTTP calls that create something on the other side (POST)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import HTTP_CLAIMS, http_posts

LIBRARIES = (Library("httpx", "httpx", modules=("httpx",)),)

SIDE_EFFECTS = (http_posts(("httpx",), ("httpx.Client", "httpx.AsyncClient")),)
CLAIMS = (HTTP_CLAIMS,)
