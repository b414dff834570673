"""Django: transactions, on-commit hooks, settings modules and migrations."""

from __future__ import annotations

from joblint.libraries.base import Library, TxFamily
from joblint.libraries.retry_api import RetryVocabulary

ATOMIC = "django.db.transaction.atomic"

LIBRARIES = (
    Library(
        "django",
        "Django",
        modules=("django",),
        transaction_functions=((ATOMIC, TxFamily.DJANGO),),
        database_alias_calls=(ATOMIC,),
        method_decorator_adapters=("django.utils.decorators.method_decorator",),
        on_commit_functions=("django.db.transaction.on_commit",),
        on_commit_methods=("on_commit",),
    ),
)

# How an entry point names the settings module its project loads: the
# environment variable Django reads (`os.environ.setdefault(NAME, "x.settings")`
# or `os.environ[NAME] = ...`).
SETTINGS_MODULE_VARIABLE = "DJANGO_SETTINGS_MODULE"

# A database that takes no writes: in settings, an alias whose "TEST" entry has
# a "MIRROR" (a replica of another database), and in a database router, the
# aliases `db_for_read` returns that `db_for_write` never does.
DATABASES_SETTING = "DATABASES"
DATABASE_TEST_KEY = "TEST"
DATABASE_MIRROR_KEY = "MIRROR"
ROUTER_READ_METHOD = "db_for_read"
ROUTER_WRITE_METHOD = "db_for_write"

# Migration operations that run a function once, at deploy time
# (`RunPython(forwards, backwards)`): one-off code, not the job path.
RUN_PYTHON_OPERATIONS: frozenset[str] = frozenset(
    {
        "django.db.migrations.RunPython",
        "django.db.migrations.operations.RunPython",
        "django.db.migrations.operations.special.RunPython",
    }
)
RUN_PYTHON_FUNCTION_KEYWORDS: frozenset[str] = frozenset({"code", "reverse_code"})

# --- retries: the clock delays and deadlines are written with ----------

RETRY_VOCABULARY = (
    RetryVocabulary(
        pure_functions=("django.utils.timezone.now",),
        clocks=("django.utils.timezone.now",),
    ),
)
