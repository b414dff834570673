"""Broker settings, merged from the libraries' `BROKER_CONFIGS`: which
spellings set which setting, the app keywords, transports and their default
visibility timeouts, time limits and delays (the whole-project rules, JL5)."""

from __future__ import annotations

from joblint.libraries import collect
from joblint.libraries.base import BrokerConfig

CONFIGS: tuple[BrokerConfig, ...] = collect("BROKER_CONFIGS")

# Setting roles the whole-project view reads.
BROKER_URL = "broker_url"
TRANSPORT_OPTIONS = "transport_options"
TIME_LIMIT = "time_limit"

SPELLING_TO_SETTING: dict[str, str] = {
    spelling: role for c in CONFIGS for role, spellings in c.settings for spelling in spellings
}
APP_CLASSES: dict[str, BrokerConfig] = {q: c for c in CONFIGS for q in c.app_classes}
APP_KEYWORDS: dict[str, dict[str, str]] = {c.library: dict(c.app_keywords) for c in CONFIGS}
CONFIG_ATTRIBUTES: frozenset[str] = frozenset(c.config_attribute for c in CONFIGS)
UPDATE_METHODS: frozenset[str] = frozenset(m for c in CONFIGS for m in c.update_methods)
LOADER_METHODS: frozenset[str] = frozenset(c.loader_method for c in CONFIGS)
DJANGO_SETTINGS_OBJECTS: frozenset[str] = frozenset(c.django_settings_object for c in CONFIGS)
CONFIG_MODULE_NAMES: frozenset[str] = frozenset(n for c in CONFIGS for n in c.config_module_names)
VISIBILITY_KEYS: frozenset[str] = frozenset(c.visibility_key for c in CONFIGS)
PREDEFINED_QUEUES_KEYS: frozenset[str] = frozenset(c.predefined_queues_key for c in CONFIGS)
TRANSPORT_DEFAULTS: dict[str, tuple[str, float]] = {
    scheme: (name, seconds) for c in CONFIGS for scheme, name, seconds in c.transport_defaults
}
TIME_LIMIT_OPTIONS: frozenset[str] = frozenset(c.time_limit_option for c in CONFIGS)
TIME_LIMIT_LIBRARIES: frozenset[str] = frozenset(
    lib for c in CONFIGS for lib in c.time_limit_libraries
)
DELAY_KEYWORDS: frozenset[str] = frozenset(k for c in CONFIGS for k in c.delay_keywords)
DELAY_METHODS: frozenset[str] = frozenset(m for c in CONFIGS for m in c.delay_methods)

# A module is taken as a Django settings module when a component of its dotted
# name is one of these (proj.settings, config.settings.production).
SETTINGS_MODULE_COMPONENTS = frozenset({"settings"})

# `eta=now() + timedelta(...)`: the functions that give the current time.
NOW_FUNCTIONS = frozenset(
    {
        "django.utils.timezone.now",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.now",
        "datetime.utcnow",
    }
)
# Functions whose literal default is the value (`os.environ.get("X", "redis://")`).
ENV_DEFAULT_FUNCTIONS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault"})
