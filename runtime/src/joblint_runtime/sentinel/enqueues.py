"""The library's dispatch points, wrapped: each enqueue is checked where it is made."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from types import FrameType, ModuleType
from typing import Any

from . import payloads
from .imports import when_imported
from .libraries import DISPATCH_NAMES, POINTS, EnqueuePoint
from .recorder import Finding
from .watch import Watch

_WRAPPED = "__joblint_sentinel__"


def install(watch: Watch) -> None:
    for point in POINTS:
        when_imported(point.module, functools.partial(_wrap_point, watch, point))


def _wrap_point(watch: Watch, point: EnqueuePoint, module: ModuleType) -> None:
    owner: Any = getattr(module, point.owner, None) if point.owner else module
    original = getattr(owner, point.method, None) if owner is not None else None
    if original is None or getattr(original, _WRAPPED, False):
        return
    if inspect.iscoroutinefunction(original):
        return
    setattr(owner, point.method, _wrapped(watch, point, original))


def _wrapped(watch: Watch, point: EnqueuePoint, original: Callable[..., Any]) -> Callable[..., Any]:
    try:
        signature: inspect.Signature | None = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None

    @functools.wraps(original)
    def enqueue(*args: Any, **kwargs: Any) -> Any:
        with watch.enqueue_call() as outermost:
            # A job sent by an on-commit callback is sent after COMMIT: no
            # JL101, but its payload is what it is.
            in_transaction = outermost and not watch.in_commit_hook()
            with watch.guarded():
                _check(watch, point, signature, args, kwargs, in_transaction, sys._getframe(1))
            return original(*args, **kwargs)

    setattr(enqueue, _WRAPPED, True)
    return enqueue


def _check(
    watch: Watch,
    point: EnqueuePoint,
    signature: inspect.Signature | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    in_transaction: bool,
    caller: FrameType,
) -> None:
    inside = watch.recorder.open_of_the_code() if in_transaction else []
    if not inside and not (watch.payloads and point.payload is not None):
        return
    frame = _enqueue_frame(watch, caller)
    if frame is None or watch.places.kind(frame.f_code.co_filename) != "code":
        return  # a library's own enqueue, or the test's
    arguments = _bound(signature, args, kwargs)
    if arguments is None:
        return
    try:
        job = point.job(arguments)
    except Exception:  # a call the library itself will reject
        return
    place = watch.places.place(frame)
    if inside:
        watch.recorder.enqueued(point.library, job, place, inside)
    if watch.payloads and point.payload is not None:
        try:
            sent = point.payload(arguments)
        except Exception:
            return
        found: dict[str, list[str]] = {}
        for code, where, what in payloads.problems(*sent):
            found.setdefault(code, []).append(f"{what} in {where}")
        for code, problems in found.items():
            watch.recorder.report(
                _payload_finding(watch, point, job, place, code, ", ".join(problems))
            )


def _enqueue_frame(watch: Watch, caller: FrameType) -> FrameType | None:
    """The project's frame that makes the enqueue, past its own wrappers of
    the library's methods (a task base class's `apply_async`)."""
    frame = watch.places.first_project_frame(caller)
    while frame is not None and frame.f_code.co_name in DISPATCH_NAMES:
        outer = watch.places.first_project_frame(frame.f_back)
        if outer is None:
            break
        frame = outer
    return frame


def _bound(
    signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any] | None:
    if signature is None:
        return None
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    return dict(bound.arguments)


def _payload_finding(
    watch: Watch, point: EnqueuePoint, job: str, place: Any, code: str, what: str
) -> Finding:
    recorder = watch.recorder
    if code == "JL201":
        name = "orm-object-payload"
        advice = (
            "it is pickled as it is now (or fails to serialise), and the job reads it stale. "
            "Pass its primary key and fetch the row inside the job"
        )
    else:
        name = "rich-type-payload"
        advice = (
            "a pickled class reference or an error with JSON, and in-flight jobs break when "
            "the class changes. Pass IDs and primitive values"
        )
    message = (
        f"{point.library} job '{job}' is sent {what}: {advice} (seen while {recorder.test} ran)"
    )
    related = []
    if recorder.test_place is not None:
        related.append((recorder.test_place, f"the test that ran it: {recorder.test}"))
    return Finding(code, name, message, place, related, recorder.test)
