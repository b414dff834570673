"""django-activity-stream: `action.send(actor, verb=..., target=...)` sends
the library's `action` signal, whose own receiver (`actstream.actions.
action_handler`, connected by the app) builds an `Action` and saves it: a
row of `actstream.models.Action` created in the caller's thread, inside its
transaction, so the project's `post_save` receivers of `Action` run there
too. Read from django-activity-stream's `actstream/actions.py` (commit
2546500: `newaction = Action(...)`, `newaction.save()`)."""

from __future__ import annotations

# A library call -> the model whose row it creates (and saves).
ROW_CREATING_CALLS = (
    ("actstream.action.send", "actstream.models.Action"),
    ("actstream.signals.action.send", "actstream.models.Action"),
)
