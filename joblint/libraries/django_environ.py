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
        # `FileAwareEnv` (django-environ 0.9+, `environ/environ.py`) reads
        # `X_FILE` first, else what `Env` reads.
        instance_classes=(
            "environ.Env",
            "environ.environ.Env",
            "environ.FileAwareEnv",
            "environ.environ.FileAwareEnv",
        ),
        instance_methods=(("", 2), ("str", 1)),
        declares_defaults=True,
    ),
)
