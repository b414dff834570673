"""django-reversion: `VersionAdmin` is a Django `ModelAdmin` (read from
django-reversion's `reversion/admin.py`, commit 51c2164:
`class VersionAdmin(admin.ModelAdmin)`), so the admins deriving from it run
their views and actions inside the request's transaction under
`ATOMIC_REQUESTS` like any other. A library's bases are not read: this
table says what it derives from."""

from __future__ import annotations

DJANGO_REQUEST_CLASSES = ("reversion.admin.VersionAdmin",)
