"""httpx: HTTP calls that write on the other side (POST, PUT, PATCH)."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import HTTP_CLAIMS, http_writes

LIBRARIES = (Library("httpx", "httpx", modules=("httpx",)),)

SIDE_EFFECTS = http_writes(("httpx",), ("httpx.Client", "httpx.AsyncClient"))
CLAIMS = (HTTP_CLAIMS,)
