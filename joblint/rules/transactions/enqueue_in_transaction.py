"""JL101, a job enqueued inside a database transaction: the rule, its
documentation and its teaching examples. What it reads to decide (openers,
`created` guards, the job's dependence on the transaction, local calls, the
fix) lives in `joblint.rules.transactions._facts`."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.project_calls import project_call_text
from joblint.analysis.tasks import Enqueue
from joblint.analysis.transactions import TxScope
from joblint.knowledge.jobs import FIX_HINTS, TxFamily
from joblint.knowledge.tokens import TRANSACTION, TRANSACTION_ANCHORS
from joblint.models import CHAIN
from joblint.requirements import (
    LeadsToEnqueue,
    OpensTransaction,
    Reached,
    Receives,
    Requirement,
    WrittenInTransaction,
)
from joblint.rule import LineOf, Valid, invalid
from joblint.rules.transactions._facts.citations import (
    enqueues_now,
    fix_hint,
    transaction_requires,
    uncertain,
    where_opened,
)
from joblint.rules.transactions._facts.commit_fix import OnCommitFix
from joblint.rules.transactions._facts.created_rows import CreatedGuards, created_only
from joblint.rules.transactions._facts.job_dependence import JobDependence
from joblint.rules.transactions._facts.local_calls import Found, LocalCall, LocalCalls
from joblint.rules.transactions._facts.openers import Opener, ProjectOpeners
from joblint.rules.transactions._facts.returned_callbacks import ReturnedCallbacks
from joblint.rules.transactions._tokens import enqueue_and


class EnqueueInTransaction(
    ProjectOpeners, CreatedGuards, JobDependence, ReturnedCallbacks, OnCommitFix, LocalCalls
):
    """
    ## What it does
    Finds jobs enqueued to an external broker while a database transaction is
    open: a Celery `.delay()`/`.apply_async()`, RQ `queue.enqueue()`, Dramatiq
    `.send()`, Huey task call, arq `enqueue_job()`, taskiq `.kiq()`, django-q
    `async_task()`, Django tasks `.enqueue()`, an SQS `send_message()` or a kombu
    `publish()` inside `transaction.atomic()`, `session.begin()`,
    `conn.transaction()`, `with conn:` (psycopg) or a function decorated with
    `@transaction.atomic`. A call, inside a transaction, of a function of the
    same module that enqueues is reported too, naming the enqueue it leads to.

    ## Why is this bad?
    The broker is not part of the transaction. A worker can pick the job up
    before COMMIT and not find the rows the job is about, or find the old
    values; if the transaction rolls back, the job runs for data that never
    existed. It works on a developer's machine and fails under load.

    ## Example
    ```python
    from django.db import transaction

    from .tasks import send_receipt


    def checkout(cart):
        with transaction.atomic():
            order = Order.objects.create(cart=cart)
            send_receipt.delay(order.pk)
    ```

    ## Use instead
    ```python
    from django.db import transaction

    from .tasks import send_receipt


    def checkout(cart):
        with transaction.atomic():
            order = Order.objects.create(cart=cart)
            transaction.on_commit(lambda: send_receipt.delay(order.pk))
            # or, with Celery >= 5.4: send_receipt.delay_on_commit(order.pk)
    ```
    Where the queue library has no commit hook, write the job to
    `joblint_runtime.outbox` inside the transaction and let its relay publish
    it after COMMIT.

    ## Transactions Django opens
    Django's admin saves and deletes inside
    `transaction.atomic(using=router.db_for_write(model))`. Read in Django
    5.1's `django/contrib/admin/options.py` (the same since Django 1.x):

    - Inside the admin's transaction: `save_model` and `save_related` (the
      add/change form, `changeform_view`, and the list-editable saves of
      `changelist_view`); `save_formset`, `save_form`, `response_add`,
      `response_change`, `construct_change_message`, `log_addition` and
      `log_change` (`changeform_view`); `delete_model`, `response_delete` and
      `log_deletion(s)` (`delete_view`).
    - Not inside it: `delete_queryset`, admin actions and `response_action`
      (the change list runs actions outside any transaction); `get_queryset`,
      `get_form` and the permission checks (they only read); the methods of
      an `InlineModelAdmin` (no hooks: the parent's `save_formset` saves
      the inlines).

    So a job those hooks enqueue, directly or through the project's helpers,
    is reported:

    ```python
    @admin.register(Dress)
    class DressAdmin(admin.ModelAdmin):
        def save_model(self, request, obj, form, change):
            super().save_model(request, obj, form, change)
            photograph.delay(obj.pk)  # JL101: use photograph.delay_on_commit(obj.pk)
    ```

    The class must derive from `ModelAdmin` (or Django's `UserAdmin`,
    `GroupAdmin`, `GISModelAdmin`, or a package's subclass that keeps
    Django's views: django-guardian's `GuardedModelAdmin`, django-reversion's
    `VersionAdmin`, django-simple-history's `SimpleHistoryAdmin`,
    django-import-export's admins, django-mptt's, django-treenode's,
    django-unfold's `ModelAdmin`, django-modeltranslation's
    `TranslationAdmin`), directly or through the project's own admin classes
    in any module. Admin actions (`delete_queryset` of the
    delete-selected action, an action function) and `get_queryset` run
    outside the admin's transaction: not findings.

    A receiver of `pre_delete`/`post_delete` or `m2m_changed` always runs
    inside a transaction: Django sends them inside the
    `transaction.atomic()` it opens for the delete (`Collector.delete()`)
    and for a many-to-many change (Django 5.1's
    `django/db/models/deletion.py`, `fields/related_descriptors.py`). A
    receiver of `pre_save`/`post_save` runs inside the transaction of whoever
    saves the model. It is reported when it enqueues (directly or through
    the project's helpers) and the project writes its sender inside a
    transaction somewhere: `Receipt.objects.create()`, `receipt.save()` or
    `get_or_create()`/`update_or_create()` (also after `select_for_update()`
    or a filter), `receipt.save()` on a value of known type, inside
    `transaction.atomic()` (a `with` or a decorator) or an admin hook, or
    the model's registration in the admin (`admin.site.register(Receipt)`,
    `@admin.register(Receipt)`). A receiver connected with no sender runs
    for every model: the project writing any of its models inside a
    transaction is enough. One whose sender a loop over a registry picks
    (`for model in registry: post_save.connect(f, sender=model)`) is not
    followed: no reading of the code tells which models it receives. A
    sender looked up by label (`apps.get_model("actstream", "Action")`) is
    the model of that app's models module. A library call that saves a row
    of its own model counts as a write of it (django-activity-stream's
    `action.send(...)` saves an `Action`), made inside a transaction around
    it or around a call of the project on the way to it. The message names
    the first such write (file:line):

    ```python
    @receiver(post_save, sender=Receipt)
    def on_receipt_saved(sender, instance, created, **kwargs):
        if created:
            print_receipt.delay(instance.pk)  # JL101 if a view saves a Receipt in atomic()
    ```

    With `ATOMIC_REQUESTS` on a database (`DATABASES = {"default": {...,
    "ATOMIC_REQUESTS": True}}`, or `DATABASES["default"]["ATOMIC_REQUESTS"] =
    True`, in the settings module the file's project loads), Django runs every
    sync view inside `transaction.atomic()`: a function of a `views` (or
    `viewsets`) module taking `request` first, a method taking it after
    `self` in such a module or in a class deriving from Django's or DRF's
    views, DRF's `perform_create`/`perform_update`/`perform_destroy`, and
    in any module a function (or a class's methods) a URLconf registers
    (`path("pay/", handlers.pay)`, `path("refund/", Refund.as_view())`).
    Views marked `@transaction.non_atomic_requests` and async views are not
    (a top-level `ATOMIC_REQUESTS = True` means nothing to Django, nor here):

    ```python
    class Checkout(View):
        def post(self, request, pk):
            send_receipt.delay(pk)  # JL101 with ATOMIC_REQUESTS
    ```

    Receivers are connected with `@receiver(signal, sender=Model)` (also a
    list of signals) or `signal.connect(handler, sender=Model)` at module
    level or in a method (`AppConfig.ready`, with the names it imports
    itself), naming a function of the module, a method of that class, or a
    function of another module: there, a function taking `sender` (or
    `instance`) and `**kwargs` is a receiver where some module connects it,
    and the message says where. These findings carry no fix: the
    database is whatever the writer's is, not known where the receiver is
    written; `transaction.on_commit(...)` or `delay_on_commit` in the
    receiver is the fix.

    ## Request transactions: every handler, and everything it calls
    Most transactions in real applications are opened by the framework
    around the request. Every enqueue any number of calls below such a
    handler (up to 6) is reported at the enqueue itself, naming the handler
    and each call on the way; SARIF carries the handler, its route, each
    call and the settings turning the transaction on as related locations.
    A call made inside a transaction of its own on the way is reported at
    that call instead; one deferred to COMMIT is no call.

    - **Django `ATOMIC_REQUESTS`** (settings as above, found wherever the
      project names them: `manage.py`, `wsgi.py`/`asgi.py`, a `celery.py`'s
      `os.environ.setdefault("DJANGO_SETTINGS_MODULE", ...)`, the
      `DJANGO_SETTINGS_MODULE` of pytest's or tox's configuration at the
      project root, a settings package's star-imports followed from module
      to module, a database config `DATABASES` names by a variable, and the
      project's own packages its `INSTALLED_APPS` lists beside the entry
      point's). Handlers: function and class-based views, generic views'
      `form_valid`/`form_invalid`, DRF views, viewsets and their `@action`s,
      `@api_view` functions, the `create`/`update`/`save` of a view's
      `serializer_class` or `form_class`, a serializer's `save()` called in a
      handler (DRF calls the project's `create`/`update`), django-ninja
      operations (`@api.post(...)` on a `NinjaAPI` or `Router`), ninja-extra
      controller routes (`@route.post`, `@http_post`), graphene
      `mutate`/`mutate_and_get_payload`, strawberry(-django) mutations, admin
      views and actions (`@admin.action`, a method taking the request in a
      `ModelAdmin`, a function taking `(modeladmin, request, queryset)` in
      an `admin` module), views and admins built on Django's by other
      libraries (smartmin's `SmartFormView`, `SmartCreateView`, ...; the
      model admins of django-reversion, django-import-export, guardian,
      simple-history, mptt), and the request-taking methods a
      mixin gives the views and model admins deriving from it (`class
      ReportMixin:` with `def report(self, request, queryset)`). Not:
      `non_atomic_requests` views (also through `method_decorator(...,
      name="dispatch")`, and views deriving from a class, a mixin say,
      whose `dispatch` is marked) and async handlers. Calls are followed
      through the types the code tells: annotations, what a local is
      assigned, and an unannotated parameter named after a class its
      module imports (`def create(org, ...)` beside `from .models import
      Org`); a call made only under `if org and country:` is not followed
      from a caller passing `None` there. A
      handler's `call_command("rebuild_index", ...)` runs the `Command.handle`
      of the project's `<app>/management/commands/rebuild_index.py` in the
      request's transaction, and is followed there (a command named by
      anything but a literal is not).

      ```python
      # services/notify.py, two calls below the view
      def hide_received(hide):
          grade_hide.delay(hide.pk)  # JL101: receive_hide() → hides.receive() → here
      ```
    - **Pyramid with `pyramid_tm`** (`config.include("pyramid_tm")`, or
      `pyramid.includes = pyramid_tm` in an ini file at the project root): every
      `@view_config` view runs inside the request's transaction manager,
      committed after the view returns. Its on-commit hook is
      `transaction.get().addAfterCommitHook(...)`, and the message says so:

      ```python
      @view_config(route_name="blocks", request_method="POST")
      def add_block(request):
          survey_block.delay(request.json_body["id"])  # JL101
      ```
    - **FastAPI with a session dependency that commits after the handler**:
      a path operation (`@router.post(...)` on an `APIRouter` or `FastAPI`,
      sync or async) with a parameter `Depends(get_db)` (also inside
      `Annotated[...]` or an alias of one, `SessionDep`), where `get_db`
      yields the session and calls `.commit()` after the `yield`: the
      COMMIT comes after the handler returns. A handler (or a function on
      the way) that commits the session itself before the call leading to
      the enqueue races nothing; a dependency that only closes its session
      is no transaction.

      ```python
      def get_session():
          session = SessionLocal()
          yield session
          session.commit()

      @router.post("/grains")
      async def add_grain(name: str, session=Depends(get_session)):
          grain = Grain(name=name)
          session.add(grain)
          session.flush()
          weigh.delay(grain.id)  # JL101: COMMIT after the handler returns
      ```

      A view's pyramid_services services are followed: a call on what
      `request.find_service(name=...)` (or `find_service(IFace)`) returns
      calls the method of the class the factory registered under that key
      makes (`config.register_service_factory(factory, name=...)`, the
      factory a class, a function returning an instance of one, or a dotted
      string; `config.register_service(instance, ...)`). A service no
      registration tells is followed nowhere. A view may also be registered
      by the project's own decorator factory (`@api_config(...)`): one
      returning `view_config(...)`, or attaching a venusian callback that
      calls `config.add_view(...)` (itself or through a function of its
      module), or a class whose `__call__` does or that derives from
      `view_config`. A project decorator that registers nothing makes no view.
    - **Flask with a teardown or after_request that commits**: a view
      (`@app.route`/`@bp.route`, `@app.post(...)` and the other method
      shortcuts on a `Flask` or `Blueprint`, `add_url_rule(view_func=f)`, a
      `MethodView`/`View` subclass's `get`/`post`/.../`dispatch_request`, a
      Flask-RESTful/RESTX `Resource`'s, a Flask-AppBuilder `@expose` method)
      of an app that registers a function calling `.commit()` with
      `teardown_request`, `teardown_appcontext`, `after_request` (or their
      blueprint-wide `teardown_app_request`/`after_app_request`; as a
      decorator or called with it, in an app factory too), or that sets
      Flask-SQLAlchemy's `SQLALCHEMY_COMMIT_ON_TEARDOWN = True` (honoured
      up to 3.0): Flask runs them after the view has returned. A blueprint's
      own `teardown_request`/`after_request` counts for its own views only;
      a hook counts for the views of its project directory (the top-level
      package of the module registering it). A teardown that only
      `remove()`s or closes the session is no transaction, nor one that
      commits only under a test of `SQLALCHEMY_COMMIT_ON_TEARDOWN` where its
      project never sets it.

      ```python
      @app.teardown_appcontext
      def commit_session(exception=None):
          if exception is None:
              db_session.commit()
          db_session.remove()

      @orders.post("/crates")
      def fill_crate():
          crate = Crate(tree_id=request.form["tree"])
          db_session.add(crate)
          db_session.flush()
          weigh.delay(crate.id)  # JL101: the teardown commits after the view
          return {"id": crate.id}
      ```
    - **Starlette (and FastAPI) with a middleware that commits after the
      endpoint**: a `BaseHTTPMiddleware` whose `dispatch` calls `.commit()`
      after `await call_next(request)`, the same in an
      `@app.middleware("http")` function, or a pure ASGI middleware whose
      `__call__` commits after `await self.app(scope, receive, send)` (or
      in a `send` wrapper it hands on), added with `app.add_middleware(Cls)`
      or `Middleware(Cls)` in `Starlette(middleware=[...])`/
      `FastAPI(middleware=[...])`; also fastapi-sqlalchemy's
      `DBSessionMiddleware` and fastapi-async-sqlalchemy's
      `SQLAlchemyMiddleware` added with `commit_on_exit=True`. Its
      endpoints: FastAPI path operations, Starlette `Route(path, endpoint)`,
      `app.add_route(...)` and `@app.route(...)`; async ones too, and the
      async functions they await. A middleware committing only before
      `call_next`, or only closing the session, is no transaction. A
      `BackgroundTask` on the response runs after a `BaseHTTPMiddleware`'s
      dispatch has returned (its commit done), but before a pure ASGI
      middleware's commit.

      ```python
      class SessionMiddleware(BaseHTTPMiddleware):
          async def dispatch(self, request, call_next):
              request.state.db = SessionLocal()
              response = await call_next(request)
              request.state.db.commit()
              return response

      @router.post("/pots")
      async def throw_pot(request: Request, clay: str):
          pot = Pot(clay=clay)
          request.state.db.add(pot)
          request.state.db.flush()
          glaze.delay(pot.id)  # JL101: the middleware commits after the endpoint
          return {"id": pot.id}
      ```

    ## Signals sent inside a transaction
    A Django `Signal.send`/`send_robust` or a blinker `send` runs every
    connected receiver there and then, so inside the sender's transaction
    (a `with atomic()`, the function a request handler reaches). Receivers
    are connected with `@receiver(signal)`, `signal.connect(handler)` (a
    bound method `self.on_x`, each class's classmethod of a literal tuple a
    loop walks, the function a project factory returns) or blinker's
    `@signal.connect`:

    ```python
    @receiver(firing_done)
    def on_fired(sender, pot_id, **kwargs):
        cool.delay(pot_id)  # JL101: fire() sends firing_done inside atomic()
    ```

    Django's own transactions count the same way: `get_or_create()` and
    `update_or_create()` create inside the `transaction.atomic()` they open
    (read in Django 5.0's `django/db/models/query.py`), so their `post_save`
    receivers run inside it whoever calls them; the deletion collector and
    the many-to-many managers send their signals inside one (above), also to
    receivers a factory builds and connects to any sender.

    ## Evidence that reaches the enqueue
    A finding is true along one path its message names:
    - A receiver's enqueue under `if created:` (or after
      `if not created: return`, or `kwargs.get("created")`) needs a
      transactional *create* of the sender (`create()`, `get_or_create()`),
      not a transactional `save()` of an existing row. A call whose literal
      flag rules out the next call (`clean(notify=False)` and `if notify:`)
      is no path.
    - The job must depend on the transaction: for a project task enqueued in
      a Django `with transaction.atomic():` block that writes, and whose writes all name their
      model (`Order.objects.filter(...).update(...)`), and whose payload
      carries no row the function created or saved, the task's body
      (through the project's calls) must read or write one of those models.
      A cache refresh keyed by an argument is not a finding; an unknown or
      stub body keeps the finding. A request handler is judged the same
      way, with what the handler and everything it calls write (a view that
      only reads enqueues nothing a worker can miss); a write that names no
      model (`session.add(x)`, `obj.save()` of an untyped name, a library
      base's write through `super()`: `CreateView.form_valid`,
      `ModelSerializer.create`, `ModelAdmin.save_model`; under pyramid_tm,
      FastAPI, Flask and Starlette also `obj.field = ...`, which the session
      flushes) or a
      call of the project's code no summary tells keeps the finding. Calls
      on classes, on tasks and on library objects write nothing.
    - A transactional dispatch is no finding: a project task class whose
      `apply_async` publishes with `pg_notify`/`NOTIFY` on the transaction's
      connection (delivered at COMMIT, dropped on ROLLBACK).
    - A dispatch made to survive a rollback is no finding: every path from
      the enqueue's statement ends in a `raise`, and the job carries no row
      the function created (on_commit would drop it).

    ## Fix safety
    Unsafe fix (`--fix --unsafe-fixes`) in a Django transaction, for an enqueue
    that is a statement of its own (not `r = task.delay(...)`): it becomes
    `transaction.on_commit(lambda: ...)`, with the variables of enclosing `for`
    loops bound as the lambda's defaults and `using=` the transaction's
    database when `atomic()` names one (an alias that isn't a string literal
    gets no fix). `transaction` is whatever name the module already imports it
    under (`tx.on_commit`, `django.db.transaction.on_commit`); otherwise
    `from django.db import transaction` is added, or, when the name
    `transaction` is taken, there is no fix.

    With `celery-django-task = true` in the configuration (the project's
    Celery tasks are `celery.contrib.django.task.DjangoTask`s: Celery >= 5.4
    with its Django fixup and no custom task class, or tasks with
    `base=DjangoTask`), a task's `.delay(...)`/`.apply_async(...)` on the
    default database becomes `.delay_on_commit(...)`/`.apply_async_on_commit(...)`
    instead; signatures, canvases and other libraries keep the lambda.

    Moving an enqueue to an on-commit hook changes behaviour on purpose: the
    job is dropped when the transaction rolls back (also a savepoint
    rollback), and the hook returns `None`, not an `AsyncResult`.

    ## Known limits
    - Request transactions are Django's, Pyramid's, FastAPI's committing
      session dependencies (one level: a dependency of a dependency is not
      followed), Flask's committing teardowns and Starlette's committing
      middleware. A hook or middleware committing through a function of its
      own is not followed; routes an app factory registers on its local
      `app` (`@app.route` inside `create_app()`) are not handlers, nor is a
      blueprint's own teardown followed to a class-based view its
      `add_url_rule` registers.
    - The search from an enqueue up to a handler follows calls the project
      model resolves: a method called on a value of unknown type
      (`self.get_object().release()`, a service from `request.find_service`)
      or a handler registered by a project's own decorator wrapping
      `view_config` is not followed; nor receivers connected by a
      decorator factory.
    - A transaction on a database that takes no writes is no race: the
      aliases listed in `read-only-databases`, an alias whose `DATABASES`
      entry has a `"TEST": {"MIRROR": ...}` (a replica), and the aliases a
      database router's `db_for_read` returns that its `db_for_write` never
      does. The alias must be a string literal or a module constant holding
      one (`atomic(using=REPLICA)`).
    - Through the project model: a call inside a transaction of the
      project's own function, method or class is followed across modules, up
      to 6 calls deep (each function once, so recursion and cycles end it),
      and reported when it leads to an enqueue, the message naming each hop
      with file:line (SARIF and JSON carry them as related locations).
      Project callables that open a transaction count as transactions:
      a `@contextmanager` yielding inside one (used with `with` or as a
      decorator), a decorator whose wrapper calls the function inside one,
      and wrappers of those. Receivers are known through imports, `self.`
      and `cls.`, module-level instances, an instance's attributes that every
      assignment gives one type (`self.order = order` with `order: Order`),
      annotations, constructors (also
      a method called on a new object, `Mailer().send(...)`) and manager
      fetches (`Order.objects.get(...)`, the row of `get_or_create`'s pair,
      each row a loop over `Order.objects.filter(...)` gives, not the plain
      values of `values_list`), and what a project helper returns when every
      return gives one class's instance (`order = load_order(pk)`); a call on
      an unannotated parameter is not followed. A queue object a project
      function makes (`def mail_queue(): return Queue("mail", ...)`) is a
      queue wherever it is used: `mail_queue().enqueue(...)`, a local or a
      module-level name bound to its call, and the message names the
      function; so is a library queue made inside a helper
      (`Queue(...).enqueue(...)`, `q = django_rq.get_queue(); q.enqueue(...)`).
      An enqueue in a lambda a function returns (a callback factory's) runs
      when the result is called, not at the factory's call:
      `transaction.on_commit(make_callback())` is no finding.
      A call made only under `if flag:` (or `else:`, `if not flag:`) on a
      parameter of its function that the function never assigns is followed
      only where the call on the way can make it: `obj.sync(asynchronous=False)`
      doesn't reach `if asynchronous: task.delay(...)`, whether the flag is a
      literal, a default the call leaves alone, or a flag of the caller handed
      on (`self.sync(asynchronous)`); where `*args`/`**kwargs` or a value
      not written out may set it, it is followed.
      A call only the project step can tell is a library's enqueue
      (`notices.schedule(pk)` is Huey's only where `schedule` is a Huey
      task) is also followed as a call of the project's own function.
      `joblint check --show-project-model FILE` shows what was inferred.
    - A transaction opened by a caller in another function (a caller of the
      function the enqueue is in) is not seen; Django's own (the admin's
      hooks, model signals' receivers, `ATOMIC_REQUESTS` views) are, as
      above. Views a router registers (DRF's `router.register(...)`) are
      known only as DRF classes; `non_atomic_requests` for any database exempts a
      view (also where only another database's requests are atomic), and
      `@method_decorator(transaction.non_atomic_requests, name=...)` every
      view of its class; settings classes (django-configurations) and an
      `ATOMIC_REQUESTS` taken from the environment aren't read (no
      findings). For receivers, only writes the project makes certainly inside
      a transaction count: not those through project helpers or inside a
      project callable that opens one, nor writes in test code or migrations.
      Save receivers for every sender (no `sender=`) or for a sender that
      isn't a class (`"shop.Receipt"`, `get_user_model()`,
      `apps.get_model(...)`, a loop's variable) are not followed (delete and
      many-to-many receivers are, whatever the sender); a receiver connected
      to several models is judged by its first `@receiver` decorator (or,
      connected elsewhere, by the first connection that makes it
      transactional). A receiver file with no enqueue of its own, calling a
      helper that enqueues, is linted only if the run lints it for another
      reason.
    - `with <x>.begin()`, `<x>.begin_nested()`, `<x>.atomic()` and
      `<x>.transaction()` count as transactions whatever `<x>` is (a documented
      heuristic: the receiver's type can't be known statically).
    - `.delay()`/`.apply_async()` count on names imported from other modules
      (even ones outside the files linted) and on tasks defined in the file;
      `.send()`, `.schedule()`, `.enqueue()` and Huey calls need the receiver to
      be a task in the files linted together, or a queue object.
    - Library-specific names need the library. `enqueue_job()`, `send_task()`
      and `.kiq()` on a receiver whose library can't be told count only where
      that library (arq or RQ, Celery, taskiq) is imported by the module or by
      a project module it imports. A method of a class defined in the project
      (`self.enqueue_job(...)` in a class that defines it, `Export.enqueue_job(...)`
      on a model, `processor.delay(...)` on an instance of a project class) is
      the project's own method, never a library's.
    - The message names a library only when the call resolves to it (the task's
      decorator or the queue object is in the files linted together): a task
      imported from elsewhere is "task 'send_receipt'".
    - Enqueues to a queue stored in the same database (procrastinate `defer`,
      `joblint_runtime.outbox`, django-q's ORM broker) are part of the
      transaction and never reported. Settings belong to the project that
      loads them: django-q's `Q_CLUSTER = {"orm": ...}` exempts the files
      under the project directory of the entry points (`manage.py`,
      `wsgi.py`, `asgi.py`, a Celery app's `config_from_object`) that name
      that settings module, or every file when none names it.
    - A task built on a project class (`@app.task(base=OnCommitTask)`) whose
      `apply_async` (or `delay`) registers the enqueue on commit is enqueued
      at COMMIT: not a finding, directly or through helpers. So are the
      tasks of an app whose default task class does
      (`Celery("shop", task_cls="shop.base:OnCommitTask")`, `app.Task =
      OnCommitTask`), for `@app.task` without a `base=` of its own (also
      through the project's alias of it, `task = app.task`), and for
      `@shared_task` where the apps of the task's project (those whose
      top-level package sits in a directory holding the task's file) name one
      such class. A signature of such a task (`send.si(pk).delay()`,
      `send.s(pk).apply_async()`) and a group of signatures of that one task
      (`group([send.si(pk) for pk in pks]).apply_async()`) are sent through
      the task's own `apply_async`, so they wait too; a group of several
      tasks' signatures, and a chain, are still reported. A `Celery`
      subclass's `task_cls` class attribute is not read;
      `celery-django-task` is taken on trust for every task's `.delay()` and
      `.apply_async()`.
    """

    CODE = "JL101"
    # An enqueue call in a file that opens a transaction somewhere.
    TRIGGERS = enqueue_and(TRANSACTION_ANCHORS, TRANSACTION)
    READS_SETTINGS = True  # django-q's ORM broker, read-only databases
    FOLLOWS_CALLS = True
    SUMMARY = "Job enqueued inside a database transaction: a worker may run it before COMMIT"
    HELP = (
        "Enqueue after COMMIT: an on-commit hook (Django's transaction.on_commit, "
        "Celery's delay_on_commit) or joblint_runtime.outbox"
    )

    VALID = (
        Valid(
            """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
            id="on-commit-lambda",
        ),
        Valid(
            """
import functools
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        transaction.on_commit(functools.partial(send_receipt.delay, order.pk))
""",
            id="on-commit-partial",
        ),
    )

    INVALID = (
        invalid(
            """
from django.db import transaction
from .tasks import send_receipt

def checkout(cart):
    with transaction.atomic():
        order = cart.to_order()
        send_receipt.delay(order.pk)
""",
            (8, 9, "Celery task 'send_receipt' is enqueued inside transaction.atomic() (line 6)"),
            fixed="""
from django.db import transaction
from .tasks import send_receipt

def checkout(cart):
    with transaction.atomic():
        order = cart.to_order()
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
            id="celery-delay-in-atomic",
            app_tasks="from celery import shared_task\n\n@shared_task\ndef send_receipt(pk): ...\n",
        ),
        invalid(
            """
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        send_receipt.delay(order.pk)
""",
            (8, 9, "task 'send_receipt' is enqueued inside transaction.atomic() (line 6)"),
            fixed="""
from django.db import transaction
from .tasks import send_receipt

def checkout(order):
    with transaction.atomic():
        order.save()
        transaction.on_commit(lambda: send_receipt.delay(order.pk))
""",
            id="task-of-a-library-the-files-linted-do-not-show",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        enqueue = context.enqueue(node)
        transaction = context.transaction
        # A request's transaction holds only where the settings say so: a
        # project callable opening one inside the handler still may.
        opener = self._opener if transaction is None or transaction.request else None
        if enqueue is not None:
            reached = context.frame.reached
            deferred = context.in_on_commit_callback or self._in_returned
            if reached is not None and not deferred:
                self._report_reached(node, enqueue, reached, transaction)
            if transaction is not None:
                self._report_direct(node, enqueue, transaction)
            if transaction is None and not deferred:
                self._enqueues.setdefault(context.frame.key, Found(enqueue, node))
            if opener is not None and not deferred:
                self._report_in_opener(node, enqueue, opener)
            if not uncertain(enqueue):
                return
            # Only the project step can tell it is an enqueue (`tasks.schedule(...)`
            # is Huey's only on a Huey task): it may also be a project function's
            # call that leads to one.
        if context.in_on_commit_callback:
            return
        callee = context.local_callee_key(node)
        if callee is not None:
            self._local_calls.append(
                LocalCall(
                    context.frame.key,
                    callee,
                    node,
                    context.statement,
                    transaction,
                    opener,
                    self._project_call_text(node) if transaction or opener else None,
                )
            )
        elif transaction is not None or opener is not None:
            self._report_chain(
                node, self._project_call_text(node), context.statement, transaction, opener
            )

    def _report_chain(
        self,
        node: cst.Call,
        text: str | None,
        statement: cst.CSTNode | None,
        tx: TxScope | None,
        opener: Opener | None,
    ) -> None:
        """A call inside a transaction of what may be the project's own
        function in another module: reported if the project model finds a
        chain of calls from it to an enqueue."""
        tx = _chain_scope(tx, opener)
        if text is None or (tx is not None and tx.request):
            return  # what a request's calls lead to is reported at the enqueue
        # Only through calls each function makes before a commit of its own: a
        # helper committing first ends the transaction before it enqueues.
        requires: list[Requirement] = [LeadsToEnqueue(text, uncommitted=True)]
        if tx is None:
            assert opener is not None
            tx = TxScope(opener.node, opener.description, TxFamily.GENERIC)
            opens = ", which opens a transaction,"
            requires.append(OpensTransaction(opener.qualname))
        else:
            opens = ""
            requires.extend(transaction_requires(tx))
        inside, family = tx, tx.family

        def message(line_of: LineOf) -> str:
            return (
                f"{text}() is called inside {where_opened(inside, line_of)}{opens} and "
                f"enqueues {CHAIN}: a worker may run the job before COMMIT. {FIX_HINTS[family]}"
            )

        self.report(node, message, requires=tuple(requires), statement=statement)

    def _project_call_text(self, node: cst.Call) -> str | None:
        return project_call_text(self.context, node)

    def _report_reached(
        self, node: cst.Call, enqueue: Enqueue, reached: TxScope, tx: TxScope | None
    ) -> None:
        """An enqueue in a function a request handler or a signal may reach,
        where no transaction around it is certain. (Where the file's own
        scope also holds, as a Django view's under ATOMIC_REQUESTS, the
        project step keeps that finding.)"""
        if tx is None or tx.requires:
            self._report_direct(node, enqueue, reached)

    def _report_direct(self, node: cst.Call, enqueue: Enqueue, tx: TxScope) -> None:
        for reading in enqueue.alternatives():
            self._report_reading(node, reading, tx)

    def _report_reading(self, node: cst.Call, enqueue: Enqueue, tx: TxScope) -> None:
        if self._dispatched_before_raise(node):
            return  # deliberately sent before a rollback: on_commit would drop it

        def message(line_of: LineOf) -> str:
            return (
                f"{enqueue.subject} {enqueue.verb} inside {where_opened(tx, line_of)}: "
                "a worker may run it before COMMIT. "
                f"{fix_hint(enqueue, tx)}"
            )

        fix = None
        if tx.family is TxFamily.DJANGO:
            fix = self._commit_fix(node, enqueue, tx)
        requires = enqueue.requires + transaction_requires(tx) + enqueues_now(enqueue)
        requires += self._touching(node, enqueue, tx) + self._runs_now()
        requires = tuple(self._naming_task(r, node, enqueue) for r in requires)
        if tx.request and not any(isinstance(r, Reached) for r in tx.requires):
            requires += self._request_depends(node, enqueue)
        receives = any(isinstance(r, WrittenInTransaction | Receives) for r in requires)
        if receives and self._on_create_only(node):
            requires = tuple(created_only(r) for r in requires)
        self.report(node, message, requires=requires, fix=fix)

    def leave_Module(self, node: cst.Module) -> None:
        leads_to = self._resolve_indirection()
        for call in self._local_calls:
            if call.transaction is None and call.opener is None:
                continue
            transaction = _chain_scope(call.transaction, call.opener)
            if transaction is not None and transaction.request:
                continue  # reported at the enqueue, reached from the request
            found = leads_to.get(call.callee)
            if found is None:
                self._report_chain(call.node, call.text, call.statement, transaction, call.opener)
            elif transaction is not None:
                self._report_indirect(call, found, transaction)
            else:
                assert call.opener is not None
                opened = TxScope(call.opener.node, call.opener.description, TxFamily.GENERIC)
                opens = (OpensTransaction(call.opener.qualname),)
                self._report_indirect(call, found, opened, opens)


def _chain_scope(tx: TxScope | None, opener: Opener | None) -> TxScope | None:
    """The transaction a call is reported inside: a request's only where no
    project callable that may open one is around the call (then the
    callable's, which the project step tells: None)."""
    return None if tx is not None and tx.request and opener is not None else tx
