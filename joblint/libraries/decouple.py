"""python-decouple: settings read from the environment or a `.env`/`settings.ini`
file (`config("X", default=...)`)."""

from __future__ import annotations

from joblint.libraries.base import EnvironmentReader

# `config` is an `AutoConfig` instance; calling one, or a `Config`, is
# `Config.get(option, default=undefined, cast=undefined)` (decouple.py).
ENVIRONMENT_READERS = (
    EnvironmentReader(
        "python-decouple",
        functions=(("decouple.config", 1),),
        instance_classes=("decouple.AutoConfig", "decouple.Config"),
        instance_methods=(("", 1),),
    ),
)
