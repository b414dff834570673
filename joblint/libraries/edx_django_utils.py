"""edx-django-utils: `TieredCache`, a per-request cache in front of Django's
cache (edx-django-utils 8.0.1, `edx_django_utils/cache/utils.py`).

Its static and class methods, on keys of Django's default cache:
- `get_cached_response(key)` answers with a `CachedResponse` whose `is_found`
  says whether either tier holds the key; the response has no truth value
  (`bool()` of it raises `CachedResponseError`), so a check reads `is_found`;
- `set_all_tiers(key, value, django_cache_timeout=DEFAULT_TIMEOUT)` stores
  whatever the key holds, in both tiers;
- `delete_all_tiers(key)` deletes it from both.
There is no set-if-absent: a lock on those keys is taken with Django's
`cache.add`. `RequestCache` has the same read but lives in one request's
thread: a check-then-set on it races with no other worker, so it is not
declared.
"""

from __future__ import annotations

from joblint.libraries.locking import KeyCommands, LockReceiver, ResponseCache

RESPONSE_CACHES = (
    ResponseCache(
        stores=("edx_django_utils.cache.TieredCache", "edx_django_utils.cache.utils.TieredCache"),
        lookup_methods=("get_cached_response",),
        found_attribute="is_found",
        atomic_receiver=LockReceiver.CACHE,
    ),
)
KEY_COMMANDS = (KeyCommands(delete_methods=("delete_all_tiers",), set_methods=("set_all_tiers",)),)
