"""Django: transactions, on-commit hooks, settings modules and migrations."""

from __future__ import annotations

from joblint.libraries.base import (
    AtomicHooks,
    Library,
    ModelSignals,
    RequestHandlers,
    SignalApi,
    TxFamily,
)
from joblint.libraries.job_work import Claims, SideEffect, TableReads
from joblint.libraries.locking import (
    CacheFramework,
    KeyCommands,
    KeyLockCommand,
    LockApi,
    LockReceiver,
)
from joblint.libraries.objects import Family, ManagerFetches, ObjectKind, ParameterAttribute
from joblint.libraries.python import ENUM
from joblint.libraries.queries import ModelKeyApi, QueryApi, RowLockApi, RowWrites, SqlApi
from joblint.libraries.retry_api import RetryVocabulary
from joblint.models import DELETE, M2M, SAVE

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

# --- the cache framework ------------------------------------------------------------

# `CACHES = {"default": {"BACKEND": "..."}}` in settings; `cache` is the
# "default" alias's cache, `caches["x"]` the alias "x"'s. A cache's `lock()` is
# its backend's (the libraries' CACHE_BACKENDS): its signature is unknown until
# the settings say which backend the cache is.
CACHE_FRAMEWORKS = (
    CacheFramework(
        objects=("django.core.cache.cache", "django.core.cache.caches"),
        classes=("django.core.cache.backends.base.BaseCache",),
        settings_name="CACHES",
        backend_key="BACKEND",
        default_alias="default",
        modules=("django.core.cache",),
    ),
)
LOCK_APIS = (
    LockApi("cache.lock(...)", method="lock", receiver=LockReceiver.CACHE, backend_defined=True),
)

# BaseCache.add(key, value, timeout=DEFAULT_TIMEOUT, version=None) (and its
# async `aadd`): stores only if the key is absent, and says whether it did; a
# cache used as a lock takes it this way. Without a timeout the cache's
# default applies (it expires); `timeout=None` never expires. No cache can
# compare and delete in one step.
_CACHE_ADD_FIX = "add(key, token, timeout=...)"
KEY_LOCK_COMMANDS = tuple(
    KeyLockCommand(
        method,
        receiver=LockReceiver.CACHE,
        receiver_text="cache.",
        expiry_keywords=("timeout",),
        expiry_position=2,
        default_expires=True,
        fix=_CACHE_ADD_FIX,
        any_key_is_evidence=False,
        compare_and_delete=False,
        parameters=("key", "value"),
    )
    for method in ("add", "aadd")
)
# BaseCache.get/has_key/set/delete and their async forms.
KEY_COMMANDS = (
    KeyCommands(
        delete_methods=("delete", "adelete"),
        get_methods=("get", "aget"),
        exists_methods=("has_key", "ahas_key"),
        set_methods=("set", "aset"),
        count_methods=("incr", "aincr", "decr", "adecr"),
    ),
)

# django.test.SimpleTestCase's `with self.assertRaisesMessage(E, "..."):`.
ERROR_TEST_METHODS = ("assertRaisesMessage",)

# --- SQL text, row locks, query chains and model keys -------------------------------

SQL_APIS = (
    SqlApi(
        methods=("raw",),  # Manager.raw(sql)
        text_functions=("django.db.models.expressions.RawSQL", "django.db.models.RawSQL"),
    ),
)

# QuerySet.select_for_update(nowait=, skip_locked=, of=, no_key=) (Tortoise's
# QuerySet has the same method).
ROW_LOCK_APIS = (
    RowLockApi(
        "select_for_update",
        ("skip_locked", "nowait"),
        "skip_locked",
        "select_for_update(skip_locked=True)",
    ),
)

QUERY_APIS = (
    QueryApi(
        filter_methods=("filter", "get"),
        exclude_methods=("exclude",),
        ordering_methods=("order_by", "earliest", "latest"),
        pick_next_methods=("first", "last", "earliest", "latest"),
        single_row_methods=("get", "get_or_create"),
        row_fetch_methods=(
            "first",
            "last",
            "earliest",
            "latest",
            "get",
            "afirst",
            "alast",
            "aget",
        ),
        and_calls=("Q", "django.db.models.Q", "django.db.models.query_utils.Q"),
        column_reference_calls=("F", "OuterRef", "Ref"),
        key_aliases=("pk",),
        lookup_separator="__",
        default_lookup="exact",
        lookups=(
            "exact",
            "iexact",
            "contains",
            "icontains",
            "in",
            "gt",
            "gte",
            "lt",
            "lte",
            "startswith",
            "istartswith",
            "endswith",
            "iendswith",
            "range",
            "date",
            "year",
            "iso_year",
            "month",
            "day",
            "week",
            "week_day",
            "iso_week_day",
            "quarter",
            "time",
            "hour",
            "minute",
            "second",
            "isnull",
            "regex",
            "iregex",
            "contained_by",
            "overlap",
            "has_key",
            "has_keys",
            "has_any_keys",
            "search",
            "trigram_similar",
            "unaccent",
        ),
        equality_lookups=("exact", "iexact"),
        key_pin_lookups=("exact", "in"),
        related_key_lookups=("pk", "id"),
        foreign_key_suffix="_id",
        save_methods=("save", "asave"),
        write_calls=("update", "delete", "bulk_update", "aupdate", "adelete", "abulk_update"),
        create_methods=("create", "get_or_create", "update_or_create", "acreate", "aget_or_create"),
    ),
)

# A field with `primary_key=True` or `unique=True`, a `OneToOneField`,
# `pk = CompositePrimaryKey("a", "b")` (Django 5.2), `Meta.unique_together`
# and `Meta.constraints`' `UniqueConstraint(fields=[...])` (one with a
# `condition=` holds only for some rows).
MODEL_KEY_APIS = (
    ModelKeyApi(
        primary_key_keyword="primary_key",
        unique_keyword="unique",
        unique_field_classes=("OneToOneField",),
        composite_key_classes=("CompositePrimaryKey",),
        unique_constraint_classes=("UniqueConstraint",),
        constraint_fields_keyword="fields",
        partial_constraint_keyword="condition",
        options_class="Meta",
        options_unique_together="unique_together",
        options_constraints="constraints",
    ),
)

# --- the admin ----------------------------------------------------------------------
#
# Django's admin writes inside `transaction.atomic(using=router.db_for_write(model))`:
# `ModelAdmin.changeform_view` (the add and change forms) and `delete_view` wrap
# all of their work in it, and `changelist_view` its list-editable saves (read in
# django/contrib/admin/options.py, Django 5.1; the same since Django 1.x). So the
# hooks those views call run inside it. Admin actions (`response_action`, the
# action functions, `delete_queryset` of the delete-selected action) and
# `get_queryset` are called outside any transaction. Inlines save through the
# parent's `save_formset`/`save_related`.
ADMIN = "django_admin"
ADMIN_CLASSES = (
    "django.contrib.admin.ModelAdmin",
    "django.contrib.admin.options.ModelAdmin",
    "django.contrib.gis.admin.GISModelAdmin",
    "django.contrib.gis.admin.options.GISModelAdmin",
    "django.contrib.auth.admin.UserAdmin",
    "django.contrib.auth.admin.GroupAdmin",
    # Packages' ModelAdmin subclasses that keep Django's views (and their
    # transactions): they add templates, permissions, history or import/export.
    "guardian.admin.GuardedModelAdmin",
    "reversion.admin.VersionAdmin",
    "simple_history.admin.SimpleHistoryAdmin",
    "import_export.admin.ImportExportModelAdmin",
    "import_export.admin.ImportModelAdmin",
    "import_export.admin.ExportActionModelAdmin",
    "mptt.admin.MPTTModelAdmin",
    "mptt.admin.DraggableMPTTAdmin",
    "treenode.admin.TreeNodeModelAdmin",
    "unfold.admin.ModelAdmin",
    "modeltranslation.admin.TranslationAdmin",
)
ATOMIC_HOOKS = (
    AtomicHooks(
        bases=ADMIN_CLASSES,
        kind=ADMIN,
        methods=frozenset(
            {
                "save_model",
                "save_related",
                "save_formset",
                "save_form",
                "delete_model",
                "response_add",
                "response_change",
                "response_delete",
                "construct_change_message",
                "log_addition",
                "log_change",
                "log_deletion",
                "log_deletions",
            }
        ),
        runner="Django's admin",
        opener="transaction.atomic()",
        family=TxFamily.DJANGO,
        registrations=(
            "django.contrib.admin.site.register",
            "django.contrib.admin.sites.site.register",
            "django.contrib.admin.register",
            "django.contrib.admin.decorators.register",
        ),
    ),
)

# --- ATOMIC_REQUESTS ------------------------------------------------------------------
#
# With `DATABASES[alias]["ATOMIC_REQUESTS"] = True`, Django's request handler
# (django/core/handlers/base.py, `make_view_atomic`) runs each sync view inside
# `transaction.atomic(using=alias)`, unless the view is marked with
# `transaction.non_atomic_requests` (for that alias); an async view with it is
# an error. A top-level `ATOMIC_REQUESTS` setting means nothing to Django.
ATOMIC_REQUESTS_KEY = "ATOMIC_REQUESTS"
# The apps a project's settings install: its own packages among them run
# under those settings wherever they sit beside its entry point.
INSTALLED_APPS_SETTING = "INSTALLED_APPS"
ATOMIC_REQUESTS_FLAG = "django.atomic_requests"
NON_ATOMIC_REQUESTS = frozenset({"django.db.transaction.non_atomic_requests"})
# What a view is: a function of a views module taking the request first, a
# method taking it after `self` in a views module or in a class deriving from
# Django's or DRF's views, and DRF's hooks the request's view calls.
VIEW_MODULE_NAMES = frozenset({"views", "viewsets"})
VIEW_REQUEST_PARAMETER = "request"
VIEW_BASE_MODULES = ("django.views.", "rest_framework.")
VIEW_HOOK_METHODS = frozenset({"perform_create", "perform_update", "perform_destroy"})
# The name a URLconf binds its routes to: its module's facts are read where
# requests are transactions (joblint.pipeline.schedule.passes.url_confs).
URLCONF_NAME = "urlpatterns"
# Views registered in a URLconf (`path("x/", views.checkout)`,
# `path("y/", Checkout.as_view())`), wherever they are defined.
URL_FUNCTIONS = frozenset(
    {
        "django.urls.path",
        "django.urls.re_path",
        "django.urls.conf.path",
        "django.urls.conf.re_path",
        "django.conf.urls.url",
    }
)
URL_VIEW_KEYWORD = "view"
AS_VIEW_METHOD = "as_view"
# Methods of Django's generic views that the request's view calls without
# handing them the request (`FormView.post` calls `form_valid(form)`).
REQUEST_HOOK_METHODS = VIEW_HOOK_METHODS | {"form_valid", "form_invalid"}
# Modules whose functions taking the request after the model admin are
# admin actions (`def approve(modeladmin, request, queryset)`).
ADMIN_MODULE_NAMES = frozenset({"admin"})
# Classes whose methods taking the request after `self` handle one: views,
# DRF's, the admin's and packages' model admins (their views and actions run
# in a request like any other).
REQUEST_CLASS_BASES = (*VIEW_BASE_MODULES, "django.contrib.admin.", *ADMIN_CLASSES)
FRAMEWORK = "django"
# The method of a class-based view every request goes through
# (`View.as_view()` calls it): marked `non_atomic_requests`, the whole
# view runs outside the request's transaction.
DISPATCH_METHOD = "dispatch"
# The class attributes naming what a DRF view saves (`perform_create` calls
# `serializer.save()`, which calls its `create` or `update`) and a form view
# saves (`form_valid` calls `form.save()`): their methods run in the request.
SAVED_BY_VIEW = {
    "serializer_class": ("create", "update", "save"),
    "form_class": ("save",),
}
# `apps.get_model("shop", "Order")` (or `"shop.Order"`, or `app_label=`,
# `model_name=`) is the model `Order` of the app labelled `shop`: by Django's
# default label, the app package `shop`, whose models module is `shop.models`
# (django/apps/registry.py `Apps.get_model`, django/apps/config.py: `label`
# defaults to the last component of the app's name).
MODEL_LOOKUPS = frozenset({"django.apps.apps.get_model", "django.apps.registry.apps.get_model"})
MODEL_LOOKUP_KEYWORDS = ("app_label", "model_name")
# `import_string("shop.tasks.send")` is the object that dotted path names
# (django/utils/module_loading.py): a task, where the path names one.
DOTTED_PATH_LOOKUPS = frozenset({"django.utils.module_loading.import_string"})
# `@receiver(signal)` connects the function it decorates (django.dispatch).
RECEIVER_DECORATORS = ("django.dispatch.receiver", "django.dispatch.dispatcher.receiver")
# django.dispatch (Django 5.1, django/dispatch/dispatcher.py): `send` and
# `send_robust` call every receiver in the sender's thread, in order.
SIGNAL_APIS = (
    SignalApi(
        receiver_decorators=RECEIVER_DECORATORS,
        connect_methods=("connect",),
        send_methods=("send", "send_robust"),
    ),
)
# Methods a library class's method calls on the instance, for project
# subclasses that override them: DRF's `Serializer.save()` calls `create()`
# or `update()` (rest_framework/serializers.py, 3.15).
# A view's model (`model = Order`, or its `queryset = Order.objects...`) is
# what Django's generic views' `get_object()` fetch a row of
# (django/views/generic/detail.py `SingleObjectMixin.get_object`, Django 5.1;
# DRF's `GenericAPIView.get_object` filters `get_queryset()` the same way).
VIEW_MODEL_ATTRIBUTE = "model"
VIEW_QUERYSET_ATTRIBUTE = "queryset"
VIEW_OBJECT_GETTERS = ("get_object",)
CALLS_OVERRIDES = {"rest_framework.serializers.": {"save": ("create", "update")}}
# Management commands run by name: `call_command("rebuild_index", ...)` runs
# `Command().handle(...)` of the module `<app>.management.commands.rebuild_index`,
# in the caller's thread and transaction (django/core/management/__init__.py,
# Django 5.x: `call_command` finds the app with `get_commands()`,
# `load_command_class` imports the module and makes its `Command()`, then
# `command.execute(*args, **defaults)`, whose `BaseCommand.execute` in
# base.py calls `self.handle(*args, **options)`). `call_command` lives in
# `django.core.management`, whichever way it is imported.
CALL_COMMAND_FUNCTIONS = frozenset({"django.core.management.call_command"})
COMMAND_PACKAGE = "management.commands"
COMMAND_HANDLER = "Command.handle"
_MODEL_FORM_VIEWS = (
    "django.views.generic.edit.ModelFormMixin",
    "django.views.generic.edit.BaseCreateView",
    "django.views.generic.edit.BaseUpdateView",
    "django.views.generic.edit.CreateView",
    "django.views.generic.edit.UpdateView",
    "django.views.generic.CreateView",
    "django.views.generic.UpdateView",
)
_DELETE_VIEWS = (
    "django.views.generic.edit.DeletionMixin",
    "django.views.generic.edit.BaseDeleteView",
    "django.views.generic.edit.DeleteView",
    "django.views.generic.DeleteView",
)
_MODEL_SAVERS = (
    "django.forms.ModelForm",
    "django.forms.models.ModelForm",
    "django.forms.models.BaseModelForm",
    "django.db.models.Model",
    "django.db.models.base.Model",
    "rest_framework.serializers.ModelSerializer",
    "rest_framework.serializers.HyperlinkedModelSerializer",
)
_DRF_WRITING_VIEWS = (
    "rest_framework.mixins.",
    "rest_framework.generics.",
    "rest_framework.viewsets.",
)
# A library method a project override calls through `super()` that writes a
# row (the view's, form's or serializer's model): method -> the library
# classes, as prefixes of their qualified names, whose method does. Django
# 5.1 `ModelFormMixin.form_valid` saves the form, `DeletionMixin.delete` and
# `BaseDeleteView.form_valid` delete the object, `ModelAdmin.save_model`/
# `delete_model`/`save_related` write; DRF 3.15's `ModelSerializer.create`/
# `update` and the mixins' `perform_*`/`create`/`update`/`destroy` save.
SUPER_WRITES: dict[str, tuple[str, ...]] = {
    "form_valid": (*_MODEL_FORM_VIEWS, *_DELETE_VIEWS),
    "delete": (*_DELETE_VIEWS, "django.db.models.Model", "django.db.models.base.Model"),
    "post": _DELETE_VIEWS,
    "save": _MODEL_SAVERS,
    "create": ("rest_framework.serializers.ModelSerializer", *_DRF_WRITING_VIEWS),
    "update": ("rest_framework.serializers.ModelSerializer", *_DRF_WRITING_VIEWS),
    "partial_update": _DRF_WRITING_VIEWS,
    "destroy": _DRF_WRITING_VIEWS,
    "perform_create": _DRF_WRITING_VIEWS,
    "perform_update": _DRF_WRITING_VIEWS,
    "perform_destroy": _DRF_WRITING_VIEWS,
    "save_model": ADMIN_CLASSES,
    "delete_model": ADMIN_CLASSES,
    "save_related": ADMIN_CLASSES,
    "save_formset": ADMIN_CLASSES,
    "delete_queryset": ADMIN_CLASSES,
}
REQUEST_HANDLERS = (
    RequestHandlers(
        "django",
        "a DRF view",
        decorators=("rest_framework.decorators.api_view",),
    ),
    RequestHandlers(
        "django",
        "an admin action",
        decorators=("django.contrib.admin.action", "django.contrib.admin.decorators.action"),
    ),
)

# --- model signals ------------------------------------------------------------------
#
# The kinds of a model instance and a queryset (`OBJECT_KINDS` below).
MODEL = "django_model"
QUERYSET = "queryset"

# Django sends these from `Model.save()`/`delete()` (also through a manager's
# `create`, `get_or_create`, `update_or_create` and a queryset's `delete`) and
# from a many-to-many field's `add`/`remove`/`set`/`clear`/`create`: in the
# writer's thread, inside its transaction. `bulk_create`, `update` and raw SQL
# send none.
MODEL_SIGNALS = (
    ModelSignals(
        signals=(
            ("django.db.models.signals.pre_save", SAVE),
            ("django.db.models.signals.post_save", SAVE),
            ("django.db.models.signals.pre_delete", DELETE),
            ("django.db.models.signals.post_delete", DELETE),
            ("django.db.models.signals.m2m_changed", M2M),
        ),
        receiver_decorators=RECEIVER_DECORATORS,
        connect_method="connect",
        sender_keyword="sender",
        receiver_keyword="receiver",
        through_attribute="through",
        instance_writes=((SAVE, ("save",)), (DELETE, ("delete",))),
        manager_writes=((SAVE, ("create", "get_or_create", "update_or_create")),),
        managers=("objects", "_default_manager"),
        queryset_writes=((DELETE, ("delete",)),),
        m2m_methods=("add", "remove", "set", "clear", "create"),
        # `Collector.delete()` sends pre/post_delete inside
        # `transaction.atomic(using=..., savepoint=False)` (its fast path, which
        # doesn't, is never taken for a model with receivers), and a
        # many-to-many manager's add/remove/set/clear send m2m_changed inside
        # one too (django/db/models/deletion.py, fields/related_descriptors.py,
        # Django 5.1). `save()` sends post_save after its own atomic block.
        own_transactions=(
            (DELETE, "the delete (Collector.delete())"),
            (M2M, "the many-to-many change"),
        ),
        # `QuerySet.get_or_create` creates inside `transaction.atomic(using=
        # self.db)`, and `update_or_create` runs its get_or_create and save
        # inside one (django/db/models/query.py, Django 5.0): their post_save
        # receivers run inside it, whoever calls them.
        atomic_manager_writes=(
            ("get_or_create", "transaction.atomic() Django opens in get_or_create()"),
            ("update_or_create", "transaction.atomic() Django opens in update_or_create()"),
        ),
        creating_methods=("create", "get_or_create", "update_or_create"),
        # Every receiver of these is handed the model instance as `instance=`
        # (django/db/models/base.py `save_base`, deletion.py `Collector.delete`,
        # fields/related_descriptors.py: m2m_changed's `instance`).
        instance_keyword="instance",
        instance_kind=MODEL,
    ),
)

# --- model classes and the manager's fetches ----------------------------------------

OBJECT_KINDS = (
    ObjectKind(
        MODEL,
        Family.ROW,
        "a Django model instance",
        "{text}.pk and re-fetch it in the task",
        key_attribute="pk",
    ),
    ObjectKind(
        QUERYSET,
        Family.ROWS,
        "a Django queryset",
        "a list of primary keys (list({text}.values_list('pk', flat=True))) and query "
        "again in the task",
    ),
)

BASE_CLASS_KINDS = (
    ("django.db.models.Model", MODEL),
    ("django.db.models.base.Model", MODEL),
    ("django.contrib.auth.models.AbstractUser", MODEL),
    ("django.contrib.auth.models.AbstractBaseUser", MODEL),
    ("django.contrib.auth.models.User", MODEL),
    ("django.contrib.auth.models.Group", MODEL),
    ("django.db.models.TextChoices", ENUM),
    ("django.db.models.IntegerChoices", ENUM),
    ("django.db.models.Choices", ENUM),
    ("django.db.models.enums.TextChoices", ENUM),
    ("django.db.models.enums.IntegerChoices", ENUM),
    ("django.db.models.enums.Choices", ENUM),
    *((base, ADMIN) for base in ADMIN_CLASSES),
)

# When a class can't be resolved in the project, one narrow heuristic: a class
# imported from a module named `models` is taken as a model.
UNRESOLVED_MODEL_MODULES = (("models", MODEL),)

# A view's `request.user`: the logged-in user, a model instance (also a
# class-based view's, which `View.setup` keeps as `self.request`). A detail
# view's `self.get_object()` is the instance the URL names (Django's
# `SingleObjectMixin.get_object`, django/views/generic/detail.py; Django REST
# framework's `GenericAPIView.get_object`, rest_framework/generics.py). A model
# form's `instance`, and what its `save()` returns, are the form's model
# instance (`BaseModelForm.save`, django/forms/models.py); a DRF serializer's
# `save()` returns its `instance` (`BaseSerializer.save`,
# rest_framework/serializers.py, 3.15).
PARAMETER_ATTRIBUTES = (
    ParameterAttribute("request", "user", MODEL, "User"),
    ParameterAttribute("self", "request.user", MODEL, "User"),
    ParameterAttribute("self", "get_object", MODEL, "the view's object", called=True),
    ParameterAttribute("form", "instance", MODEL, "the form's model", local_too=True),
    ParameterAttribute("form", "save", MODEL, "the form's model", called=True, local_too=True),
    ParameterAttribute("serializer", "instance", MODEL, "the serializer's model", local_too=True),
    ParameterAttribute(
        "serializer", "save", MODEL, "the serializer's model", called=True, local_too=True
    ),
)

# What only a model instance has: `refresh_from_db()` and `save()` (called
# with no positional argument: a file's or an image's `save(path)` takes one),
# the `_meta` options and the `pk` property (django/db/models/base.py, Django 5.1).
MODEL_INSTANCE_METHODS = ("refresh_from_db", "save")
MODEL_INSTANCE_ATTRIBUTES = ("_meta", "pk")

MANAGER_FETCHES = (
    ManagerFetches(
        manager_attribute="objects",
        row_kind=MODEL,
        rows_kind=QUERYSET,
        row_methods=(
            "get",
            "create",
            "first",
            "last",
            "latest",
            "earliest",
            "get_or_create",
            "update_or_create",
            "aget",
            "acreate",
            "afirst",
            "alast",
            "alatest",
            "aearliest",
            "aget_or_create",
            "aupdate_or_create",
        ),
        rows_methods=(
            "all",
            "filter",
            "exclude",
            "order_by",
            "select_related",
            "prefetch_related",
            "annotate",
            "values",
            "values_list",
            "distinct",
            "only",
            "defer",
            "using",
            "select_for_update",
            "none",
            "reverse",
            "alias",
            "union",
            "intersection",
            "difference",
        ),
        plain_methods=("values", "values_list"),
        row_functions=("django.shortcuts.get_object_or_404", "django.shortcuts.aget_object_or_404"),
        rows_functions=("django.shortcuts.get_list_or_404",),
        pair_methods=(
            "get_or_create",
            "update_or_create",
            "aget_or_create",
            "aupdate_or_create",
        ),
    ),
)

# --- what a job does twice when it runs twice (JL601) --------------------------------

_MAIL = ("django.core.mail", "django.core.mail.message")
_MESSAGES = ("EmailMessage", "EmailMultiAlternatives")
SIDE_EFFECTS = (
    SideEffect(
        "sends an email",
        calls=(
            *(
                f"django.core.mail.{name}"
                for name in ("send_mail", "send_mass_mail", "mail_admins", "mail_managers")
            ),
            *(f"{module}.{message}.send" for module in _MAIL for message in _MESSAGES),
            # `get_connection().send_messages(...)`: the backend sends them.
            "django.core.mail.get_connection.send_messages",
        ),
        entered=("django.core.mail.get_connection",),
        remedy="email has no idempotency key: record the send and check it first",
    ),
)

# `obj, created = Model.objects.get_or_create(...)` claims a unique row:
# a repeat delivery finds it created; `cache.add(key, ...)` sets only if absent.
CLAIMS = (
    Claims(
        unique_creates=("get_or_create", "aget_or_create"),
        set_if_absent=(("add", ""), ("aadd", "")),
    ),
)

# --- a whole table in one job (JL602) ------------------------------------------------

# `Model.objects.all()`, `.iterator(chunk_size=...)` (fewer rows in memory at
# once, every row still read by the one job), `.order_by(...)`, `.only(...)`:
# every row. `.filter()`, `.exclude()`, a slice, `.get()`, `.first()` (any
# method not named here) bound the read. `get_user_model()` and
# `apps.get_model(...)` give a model class. `connection.cursor()` is a DB-API
# cursor: `cursor.execute("SELECT ...")`, then `fetchall()` or iteration.
TABLE_READS = (
    TableReads(
        "django",
        managers=("objects", "_default_manager", "_base_manager"),
        keep_rows=(
            "all",
            "order_by",
            "reverse",
            "select_related",
            "prefetch_related",
            "only",
            "defer",
            "using",
            "iterator",
            "aiterator",
            "values",
            "values_list",
            "annotate",
            "alias",
        ),
        groupings=(("values", "annotate"), ("values_list", "annotate")),
        model_kind=MODEL,
        model_functions=(
            "django.contrib.auth.get_user_model",
            "django.apps.apps.get_model",
        ),
        system_tables=("django_migrations",),
    ),
)


# --- writes of one row (JL106) ----------------------------------------------------

# `order.save()`, `order.delete()` write the instance's row; a queryset's
# `update()`/`delete()` does when its filter pins the key to an instance's
# (`Order.objects.filter(pk=order.pk).update(state="sent")`).
ROW_WRITES = (
    RowWrites(
        instance_methods=frozenset({"save", "asave", "delete", "adelete"}),
        pinned_methods=frozenset({"update", "aupdate", "delete", "adelete"}),
        filters=frozenset({"filter", "select_for_update"}),
        key_lookups=frozenset({"pk", "id", "pk__exact", "id__exact"}),
        key_attributes=frozenset({"pk", "id", "uuid"}),
        managers=frozenset({"objects", "_default_manager", "_base_manager"}),
        row_loaders=frozenset({"get", "aget", "first", "afirst", "last", "alast"}),
        # `self.get_object()`: a view's row (Django's and DRF's generic views).
        loader_functions=frozenset({"get_object_or_404", "aget_object_or_404", "get_object"}),
        deleting_methods=frozenset({"delete", "adelete"}),
        only_fields_keyword="update_fields",
        plain_methods=frozenset({"refresh_from_db", "arefresh_from_db", "full_clean", "clean"}),
        self_set_options=frozenset({"auto_now"}),
    ),
)
