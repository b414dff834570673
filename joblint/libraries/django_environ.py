"""django-environ: settings read from the environment through an `Env`
instance (`env = environ.Env()`, then `env("X")` or a typed method)."""

from __future__ import annotations

from joblint.libraries.base import EnvironmentReader

# `Env.__call__(var, cast=None, default=NOTSET, parse_default=False)`; the
# `str` method takes the default second: `Env.str(var, default=NOTSET)`
# (environ/environ.py, django-environ 0.4.4; later releases add keywords after it).
# `Env(**scheme)` declares defaults: `Env(TIME_LIMIT=(int, 43200))`, used by
# `get_value` when the call gives none.
ENVIRONMENT_READERS = (
    EnvironmentReader(
        "django-environ",
        instance_classes=("environ.Env", "environ.environ.Env"),
        instance_methods=(("", 2), ("str", 1)),
        declares_defaults=True,
    ),
)
