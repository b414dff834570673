"""Broker settings, merged from the libraries' `BROKER_CONFIGS`: which
spellings set which setting, the app keywords, transports and their default
visibility timeouts, time limits and delays (the whole-project rules, JL5)."""

from __future__ import annotations

from joblint.libraries import collect
from joblint.libraries.base import (
    BrokerConfig,
    BrokerTransport,
    EnvironmentReader,
    SettingsClasses,
    SettingsModel,
    UrlBuilder,
)

CONFIGS: tuple[BrokerConfig, ...] = collect("BROKER_CONFIGS")
TRANSPORTS: tuple[BrokerTransport, ...] = collect("BROKER_TRANSPORTS")
SETTINGS_CLASS_KINDS: tuple[SettingsClasses, ...] = collect("SETTINGS_CLASSES")
ENVIRONMENT_READERS: tuple[EnvironmentReader, ...] = collect("ENVIRONMENT_READERS")
SETTINGS_MODELS: tuple[SettingsModel, ...] = collect("SETTINGS_MODELS")
URL_BUILDERS: tuple[UrlBuilder, ...] = collect("URL_BUILDERS")

# Setting roles the whole-project view reads.
BROKER_URL = "broker_url"
TRANSPORT_OPTIONS = "transport_options"
TIME_LIMIT = "time_limit"
EAGER_ROLES: frozenset[str] = frozenset(c.eager_role for c in CONFIGS if c.eager_role)

SPELLING_TO_SETTING: dict[str, str] = {
    spelling: role for c in CONFIGS for role, spellings in c.settings for spelling in spellings
}
APP_CLASSES: dict[str, BrokerConfig] = {q: c for c in CONFIGS for q in c.app_classes}
APP_KEYWORDS: dict[str, dict[str, str]] = {c.library: dict(c.app_keywords) for c in CONFIGS}
CONFIG_ATTRIBUTES: frozenset[str] = frozenset(c.config_attribute for c in CONFIGS)
UPDATE_METHODS: frozenset[str] = frozenset(m for c in CONFIGS for m in c.update_methods)
LOADER_METHODS: frozenset[str] = frozenset(c.loader_method for c in CONFIGS)
DJANGO_SETTINGS_OBJECTS: frozenset[str] = frozenset(c.django_settings_object for c in CONFIGS)
# The same objects as code names them (`from django.conf import settings`).
SETTINGS_OBJECT_NAMES: frozenset[str] = frozenset(
    o.replace(":", ".") for o in DJANGO_SETTINGS_OBJECTS
)
CONFIG_MODULE_NAMES: frozenset[str] = frozenset(n for c in CONFIGS for n in c.config_module_names)
VISIBILITY_KEYS: frozenset[str] = frozenset(c.visibility_key for c in CONFIGS)
# Broker URL scheme -> the transport it selects.
TRANSPORT_OF_SCHEME: dict[str, BrokerTransport] = {
    scheme: t for t in TRANSPORTS for scheme in t.schemes
}
# The transport names a broker URL or joblint's `broker` setting may give.
TRANSPORT_NAMES: frozenset[str] = frozenset({*collect("TRANSPORT_ALIASES"), *TRANSPORT_OF_SCHEME})
OPTION_METHODS: frozenset[str] = frozenset(m for c in CONFIGS for m in c.option_methods)
OPTIONS_KEYWORDS: frozenset[str] = frozenset(
    c.options_keyword for c in CONFIGS if c.options_keyword
)
CONFIG_SOURCE_KEYWORDS: frozenset[str] = frozenset(
    c.config_source_keyword for c in CONFIGS if c.config_source_keyword
)
# Classes whose subclasses hold settings as class attributes.
SETTINGS_CLASS_BASES: frozenset[str] = frozenset(b for k in SETTINGS_CLASS_KINDS for b in k.bases)
SETTINGS_CLASS_VARIABLES: frozenset[str] = frozenset(
    k.class_variable for k in SETTINGS_CLASS_KINDS if k.class_variable
)


def value_default(qualname: str) -> str | None:
    """For a settings value wrapper (`configurations.values.IntegerValue`): the
    keyword of its default (also its first positional argument); else None."""
    for kind in SETTINGS_CLASS_KINDS:
        if (
            kind.value_prefix
            and qualname.startswith(kind.value_prefix)
            and qualname.endswith(kind.value_suffix)
        ):
            return kind.value_default_keyword
    return None


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

# Reads of an environment variable (`EnvironmentReader`): function -> the
# position of its default; mappings read by subscript; instance classes ->
# (method or "" for a call -> the position of its default).
ENV_READ_FUNCTIONS: dict[str, int] = {
    function: position for r in ENVIRONMENT_READERS for function, position in r.functions
}
ENV_MAPPINGS: frozenset[str] = frozenset(m for r in ENVIRONMENT_READERS for m in r.mappings)
ENV_INSTANCE_METHODS: dict[str, dict[str, int]] = {
    cls: dict(r.instance_methods) for r in ENVIRONMENT_READERS for cls in r.instance_classes
}
ENV_DECLARING_CLASSES: frozenset[str] = frozenset(
    cls for r in ENVIRONMENT_READERS if r.declares_defaults for cls in r.instance_classes
)
ENV_DEFAULT_KEYWORDS: frozenset[str] = frozenset(r.default_keyword for r in ENVIRONMENT_READERS)
# Settings model base class -> its model (`SettingsModel`).
SETTINGS_MODEL_OF_BASE: dict[str, SettingsModel] = {b: m for m in SETTINGS_MODELS for b in m.bases}

# URL builders (`UrlBuilder`): function -> its scheme keyword; a project
# helper's name word -> the keyword.
URL_BUILDER_SCHEMES: dict[str, str] = {
    function: b.scheme_keyword for b in URL_BUILDERS for function in b.functions
}
URL_HELPER_WORDS: dict[str, str] = {b.word: b.scheme_keyword for b in URL_BUILDERS if b.word}


def url_scheme_keyword(qualname: str) -> str | None:
    """The keyword giving the scheme of the URL a call of `qualname` builds, or None."""
    if qualname in URL_BUILDER_SCHEMES:
        return URL_BUILDER_SCHEMES[qualname]
    name = qualname.rpartition(".")[2].lower()
    return next((k for word, k in URL_HELPER_WORDS.items() if word in name), None)
