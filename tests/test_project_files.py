"""Settings a project names in its configuration files: pytest's and tox's
`DJANGO_SETTINGS_MODULE`, a Pyramid ini's `pyramid.includes`."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from joblint.api import lint_paths
from joblint.config import Config
from joblint.pipeline.schedule.project_files import project_file_facts
from joblint.pipeline.schedule.run import RunOptions

PYRAMID_APP = {
    "kiln/__init__.py": (
        "from pyramid.config import Configurator\n\n\n"
        "def main(global_config, **settings):\n"
        "    config = Configurator(settings=settings)\n"
        "    config.scan()\n"
        "    return config.make_wsgi_app()\n"
    ),
    "kiln/tasks.py": (
        "from celery import shared_task\n\n\n@shared_task\ndef fire(pot_id):\n    return pot_id\n"
    ),
    "kiln/views.py": (
        "from pyramid.view import view_config\n\nfrom kiln.tasks import fire\n\n\n"
        "@view_config(route_name='pots', request_method='POST')\n"
        "def add_pot(request):\n"
        "    pot = request.db.add(request.json_body)\n"
        "    fire.delay(request.json_body['id'])\n"
    ),
}


def _found(root: Path) -> list[str]:
    run = lint_paths([Path(".")], Config(root=root), RunOptions())
    return sorted(f"{f.path}:{f.span.line}:{f.code}" for f in run.findings)


@pytest.fixture
def pyramid_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path, PYRAMID_APP)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_ini_including_pyramid_tm_makes_views_transactions(pyramid_app: Path) -> None:
    (pyramid_app / "development.ini").write_text(
        "[app:main]\nuse = egg:kiln\npyramid.includes =\n    pyramid_debugtoolbar\n    pyramid_tm\n"
    )
    assert _found(pyramid_app) == ["kiln/views.py:9:JL101"]


def test_an_ini_without_pyramid_tm_is_no_transaction(pyramid_app: Path) -> None:
    (pyramid_app / "development.ini").write_text(
        "[app:main]\nuse = egg:kiln\npyramid.includes = pyramid_debugtoolbar\n"
    )
    assert _found(pyramid_app) == []


def test_a_broken_ini_says_nothing_and_the_run_goes_on(pyramid_app: Path) -> None:
    (pyramid_app / "development.ini").write_text("pyramid.includes = pyramid_tm\n[app:main\n")
    assert _found(pyramid_app) == []


def test_pytest_and_tox_configuration_name_the_settings(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nDJANGO_SETTINGS_MODULE = shop.settings.test\n")
    (tmp_path / "tox.ini").write_text(
        "[testenv]\nsetenv =\n    PYTHONPATH = .\n    DJANGO_SETTINGS_MODULE=shop.settings.ci\n"
    )
    (tmp_path / "setup.cfg").write_text(
        "[tool:pytest]\nDJANGO_SETTINGS_MODULE = shop.settings.cfg\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nDJANGO_SETTINGS_MODULE = "shop.settings.toml"\n'
    )
    found = {r.path: r.facts.loads_settings for r in project_file_facts(tmp_path, lambda p: p.name)}
    assert found == {
        "pytest.ini": ("shop.settings.test",),
        "tox.ini": ("shop.settings.ci",),
        "setup.cfg": ("shop.settings.cfg",),
        "pyproject.toml": ("shop.settings.toml",),
    }


def test_unreadable_configuration_files_say_nothing(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options\n")
    (tmp_path / "setup.cfg").write_bytes(b"\xff\xfe[tool:pytest]\n")
    assert project_file_facts(tmp_path, str) == []
