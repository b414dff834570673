"""A monorepo's projects are modelled apart: one project's settings don't
govern another's requests, their modules of one name stay two modules, and
a shared library stays in the model of every project that imports it. Each
project reports what it reports when checked alone, in cold, warm and
replayed runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

import joblint.pipeline.schedule.outcome as outcome
from joblint.api import lint_paths
from joblint.config import Config
from joblint.pipeline.manifest import Manifest
from joblint.pipeline.schedule.run import RunOptions, relinter
from joblint.pipeline.schedule.sources import DisplayPaths, Source, source_of
from joblint.pipeline.schedule.subprojects import parts


def _service(atomic_requests: bool, placing: str) -> dict[str, str]:
    """A Django service; its request handler reaches an enqueue through
    `placing` (a module of its own, or the shared library's)."""
    settings = 'DATABASES = {"default": env.db("DATABASE_URL")}\n'
    if atomic_requests:
        settings += 'DATABASES["default"]["ATOMIC_REQUESTS"] = True\n'
    return {
        "manage.py": (
            'import os\n\nos.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")\n'
        ),
        "config/__init__.py": "",
        "config/settings.py": settings,
        "shop/__init__.py": "",
        "shop/models.py": (
            "from django.db import models\n\n\nclass Order(models.Model):\n"
            "    paid = models.BooleanField(default=False)\n"
        ),
        "shop/tasks.py": (
            "from celery import shared_task\n\nfrom shop.models import Order\n\n\n@shared_task\n"
            "def ship(order_id):\n    return Order.objects.get(pk=order_id)\n"
        ),
        "shop/placing.py": (
            "from shop.tasks import ship\n\n\ndef place(order_id):\n    ship.delay(order_id)\n"
        ),
        "shop/views.py": (
            f"from shop.models import Order\nfrom {placing} import place\n\n\n"
            "def pay(request, order_id):\n"
            "    Order.objects.filter(pk=order_id).update(paid=True)\n"
            "    place(order_id)\n"
        ),
    }


def _under(directory: str, files: dict[str, str]) -> dict[str, str]:
    return {f"{directory}/{name}": text for name, text in files.items()}


LIBRARY = {
    "setup.py": "from setuptools import setup\n\nsetup(name='fulfilment')\n",
    "fulfilment/__init__.py": "",
    "fulfilment/models.py": (
        "from django.db import models\n\n\nclass Shipment(models.Model):\n"
        "    order_id = models.IntegerField()\n"
    ),
    "fulfilment/tasks.py": (
        "from celery import shared_task\n\nfrom fulfilment.models import Shipment\n\n\n"
        "@shared_task\ndef fulfil(order_id):\n"
        "    return Shipment.objects.get(order_id=order_id)\n"
    ),
    "fulfilment/placing.py": (
        "from fulfilment.models import Shipment\nfrom fulfilment.tasks import fulfil\n\n\n"
        "def place(order_id):\n"
        "    Shipment.objects.create(order_id=order_id)\n"
        "    fulfil.delay(order_id)\n"
    ),
}

# Two services with the same module names; only billing's requests are
# transactions. A library the shipping service imports.
MONOREPO = {
    "pyproject.toml": "[tool.joblint]\n",
    **_under("services/billing", _service(atomic_requests=True, placing="shop.placing")),
    **_under("services/shipping", _service(atomic_requests=False, placing="fulfilment.placing")),
    **_under("libs/fulfilment", LIBRARY),
}


@pytest.fixture
def monorepo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, MONOREPO)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _found(root: Path, path: str, options: RunOptions | None = None) -> list[str]:
    run = lint_paths([Path(path)], Config(root=root), options or RunOptions())
    assert run.errors == [] and run.internal_errors == []
    return sorted(f"{f.path}:{f.span.line}:{f.code}" for f in run.findings)


def test_a_service_whose_requests_are_transactions_reports_alone(monorepo: Path) -> None:
    # Shipping's requests are no transactions, though its modules have
    # billing's names (config.settings, shop.placing).
    assert _found(monorepo, ".") == ["services/billing/shop/placing.py:5:JL101"]


def test_the_monorepo_reports_what_each_project_reports_alone(monorepo: Path) -> None:
    alone = _found(monorepo, "services/billing") + _found(monorepo, "services/shipping")
    assert _found(monorepo, ".") == sorted(alone)


def test_warm_and_replayed_runs_report_the_same(monorepo: Path) -> None:
    cold = _found(monorepo, ".", RunOptions(cache=True))
    (monorepo / "services/shipping/shop/models.py").write_text(
        "from django.db import models\n\n\nclass Order(models.Model):\n"
        "    paid = models.BooleanField(default=True)\n"
    )
    warm = _found(monorepo, ".", RunOptions(cache=True))
    replayed = _found(monorepo, ".", RunOptions(cache=True))
    assert cold == warm == replayed == ["services/billing/shop/placing.py:5:JL101"]


def test_a_library_a_service_imports_is_modelled_with_it(tmp_path: Path) -> None:
    # Shipping's requests made transactions: its handler reaches the
    # library's enqueue, which is reported there.
    write(tmp_path, MONOREPO)
    settings = tmp_path / "services/shipping/config/settings.py"
    settings.write_text(settings.read_text() + 'DATABASES["default"]["ATOMIC_REQUESTS"] = True\n')
    found = _found(tmp_path, str(tmp_path))
    assert [f.removeprefix(f"{tmp_path}/") for f in found] == [
        "libs/fulfilment/fulfilment/placing.py:7:JL101",
        "services/billing/shop/placing.py:5:JL101",
    ]


def _parts(root: Path, files: dict[str, str]) -> list[list[str]]:
    write(root, files)
    shown, manifest = DisplayPaths(), Manifest(None)
    sources = []
    for path in sorted(root.rglob("*.py")):
        found = source_of(path, shown(path), manifest)
        assert isinstance(found, Source)
        sources.append(found)
    return sorted(
        sorted(s.path.relative_to(root).as_posix() for s in part.sources) for part in parts(sources)
    )


def test_projects_that_import_nothing_of_each_other_are_apart(tmp_path: Path) -> None:
    found = _parts(
        tmp_path,
        {
            "a/pyproject.toml": "",
            "a/app/__init__.py": "",
            "a/app/views.py": "import os\nfrom app import models\n",
            "b/setup.cfg": "",
            "b/app/__init__.py": "",
            "b/app/views.py": "from app.models import Thing\n",
            # Above both: a part of its own.
            "tools/release.py": "import subprocess\n",
        },
    )
    assert found == [
        ["a/app/__init__.py", "a/app/views.py"],
        ["b/app/__init__.py", "b/app/views.py"],
        ["tools/release.py"],
    ]


def test_an_import_of_a_package_only_another_project_defines_joins_them(tmp_path: Path) -> None:
    found = _parts(
        tmp_path,
        {
            "svc/manage.py": "",
            "svc/app/__init__.py": "",
            "svc/app/jobs.py": "if True:\n    import os, shared.tasks as t\n",
            "lib/pyproject.toml": "",
            "lib/shared/__init__.py": "",
            "lib/shared/tasks.py": "",
            "other/pyproject.toml": "",
            "other/main.py": "from app import jobs  # its own app, not svc's\n",
            "other/app/__init__.py": "",
        },
    )
    assert found == [
        [
            "lib/shared/__init__.py",
            "lib/shared/tasks.py",
            "svc/app/__init__.py",
            "svc/app/jobs.py",
            "svc/manage.py",
        ],
        ["other/app/__init__.py", "other/main.py"],
    ]


def test_a_project_file_inside_a_package_leaves_it_with_its_project(tmp_path: Path) -> None:
    # A test app's manage.py inside the package: its files are the
    # package's modules, imported from the project above.
    found = _parts(
        tmp_path,
        {
            "pkg/setup.py": "",
            "pkg/wagon/__init__.py": "",
            "pkg/wagon/core.py": "",
            "pkg/wagon/test/__init__.py": "",
            "pkg/wagon/test/manage.py": "",
            "pkg/wagon/test/settings.py": "",
        },
    )
    assert len(found) == 1


def test_a_file_is_relinted_with_its_own_project(monorepo: Path) -> None:
    # The fix loop and the editor settle new bytes of one file with the
    # rest of its part, not with a same-named module of another project.
    config = Config(root=monorepo)
    run = lint_paths([Path(".")], config, RunOptions())
    for service, expected in (("billing", ["JL101"]), ("shipping", [])):
        shown = f"services/{service}/shop/placing.py"
        relint = relinter(config, run, shown)
        assert [f.code for f in relint((monorepo / shown).read_bytes())] == expected


def test_a_replayed_run_settled_again_settles_each_part_alone(
    monorepo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Test paths decide only what is shown: the remembered parts are
    # settled again, each with its own model (billing; shipping with the library).
    cold = _found(monorepo, ".", RunOptions(cache=True))
    settled: list[int] = []
    real = outcome.settle_scoped
    monkeypatch.setattr(
        outcome, "settle_scoped", lambda *a, **k: settled.append(1) or real(*a, **k)
    )
    config = Config(root=monorepo, extend_test_paths=("nothing_here.py",))
    run = lint_paths([Path(".")], config, RunOptions(cache=True))
    assert sorted(f"{f.path}:{f.span.line}:{f.code}" for f in run.findings) == cold
    assert len(settled) == 2


def test_a_named_file_is_modelled_with_its_own_project(monorepo: Path) -> None:
    # Pre-commit names the changed files; the rest of the monorepo is read
    # for facts, each project's alone.
    billing, shipping = "services/billing/shop/placing.py", "services/shipping/shop/placing.py"
    assert _found(monorepo, billing) == [f"{billing}:5:JL101"]
    assert _found(monorepo, shipping) == []
