"""smartmin (nyaruka): class-based views built on Django's generic views, so
requests Django runs inside the request's transaction under
`ATOMIC_REQUESTS` like any other view. Read from smartmin's
`smartmin/views.py` (commit 9720589): `SmartFormView(SmartFormMixin,
SmartView, FormView)`, `SmartReadView(SmartSingleObjectView, DetailView)`,
`SmartListView(SmartView, ListView)` and the rest below derive from
`django.views.generic`; `SmartView`, `SmartFormMixin` and `SmartCRUDL` are
not views by themselves. A project's views deriving from these are known
as views only through this table: smartmin is a library, its bases are not
read."""

from __future__ import annotations

DJANGO_REQUEST_CLASSES = tuple(
    f"smartmin.views.{name}"
    for name in (
        "SmartTemplateView",
        "SmartReadView",
        "SmartDeleteView",
        "SmartListView",
        "SmartCsvView",
        "SmartXlsView",
        "SmartFormView",
        "SmartModelFormView",
        "SmartUpdateView",
        "SmartMultiFormView",
        "SmartCreateView",
        "SmartCSVImportView",
    )
)
