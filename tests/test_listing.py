"""The remembered listing: a walk with a cache scans again only the
directories whose `stat` changed, and starts over when a file that decides
what is walked below it (`.gitignore`, `.git`, a configuration file)
changed, appeared or went away. Each test compares a warm walk with a walk
without the cache."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import write

from joblint.api import RunOptions, lint_paths
from joblint.config import Config, Configs, load
from joblint.pipeline.cache import CACHE_DIR_NAME
from joblint.pipeline.discover import discover
from joblint.pipeline.listing import LISTING_NAME

FILES = {
    ".git/HEAD": "ref\n",
    ".gitignore": "media/\n",
    "shop/__init__.py": "",
    "shop/orders/__init__.py": "",
    "shop/orders/views.py": "x = 1\n",
    "shop/orders/legacy/old.py": "x = 1\n",
    "shop/mail.py": "x = 1\n",
    "media/generated.py": "x = 1\n",
    "docs/conf.py": "x = 1\n",
}


def _settle(root: Path) -> None:
    """Date every file and directory back a minute: the listing remembers
    only what hasn't just changed (it could change again within one tick)."""
    past = time.time() - 60
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        os.utime(path, (past, past), follow_symlinks=not path.is_symlink())
    os.utime(root, (past, past))


def _walk(root: Path, cache: bool = True, config: Config | None = None) -> list[str]:
    config = config or Config(root=root)
    where = root / CACHE_DIR_NAME if cache else None
    found = discover([root], config, Configs(config), where)
    return [p.relative_to(root).as_posix() for p in found.files]


def _remembered(root: Path) -> dict[str, object]:
    record = json.loads((root / CACHE_DIR_NAME / LISTING_NAME).read_text())
    (listing,) = record["listings"].values()
    assert isinstance(listing, dict)
    return listing


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, FILES)
    (tmp_path / CACHE_DIR_NAME).mkdir()
    _settle(tmp_path)
    return tmp_path


def _warm(project: Path) -> list[str]:
    """A walk with the listing, checked against one without it."""
    found = _walk(project)
    assert found == _walk(project, cache=False)
    return found


def test_a_warm_walk_finds_what_a_cold_one_finds(project: Path) -> None:
    cold = _walk(project)
    assert "media/generated.py" not in cold and "shop/orders/views.py" in cold
    directories = _remembered(project)["directories"]
    assert isinstance(directories, dict) and str(project / "shop" / "orders") in directories
    assert _warm(project) == cold


def test_a_file_added_to_a_remembered_directory_is_found(project: Path) -> None:
    _walk(project)
    (project / "shop" / "orders" / "refunds.py").write_text("x = 1\n")
    assert "shop/orders/refunds.py" in _warm(project)


def test_a_directory_renamed_is_walked_by_its_new_name(project: Path) -> None:
    _walk(project)
    (project / "shop" / "orders").rename(project / "shop" / "sales")
    found = _warm(project)
    assert "shop/sales/views.py" in found and "shop/orders/views.py" not in found


def test_a_gitignore_added_above_a_remembered_directory_applies(project: Path) -> None:
    _walk(project)
    # `shop/orders/legacy` itself is unchanged: only its parent's parent gains the file.
    (project / "shop" / ".gitignore").write_text("legacy/\n")
    found = _warm(project)
    assert "shop/orders/legacy/old.py" not in found and "shop/orders/views.py" in found


def test_an_edited_gitignore_applies(project: Path) -> None:
    _walk(project)
    ignore = project / ".gitignore"
    stat = ignore.stat()
    ignore.write_text("docs/\n\n")  # the same size, and the modification time put back
    os.utime(ignore, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    found = _warm(project)
    assert "docs/conf.py" not in found and "media/generated.py" in found


def test_a_gitignore_above_the_walk_applies(project: Path) -> None:
    top = project / "shop"
    config = Config(root=top)
    assert "shop/orders/legacy/old.py" in [f"shop/{p}" for p in _walk(top, config=config)]
    (project / ".gitignore").write_text("media/\nlegacy/\n")
    found = _walk(top, config=config)
    assert found == _walk(top, cache=False, config=config)
    assert "orders/legacy/old.py" not in found


def test_a_changed_configuration_walks_with_its_excludes(project: Path) -> None:
    _walk(project)
    excluding = Config(root=project, extend_exclude=("docs",))
    assert "docs/conf.py" not in _walk(project, config=excluding)
    assert "docs/conf.py" in _walk(project)


def test_a_link_pointing_at_a_directory_later_is_walked(project: Path) -> None:
    elsewhere = project.parent / f"{project.name}-vendor"  # outside the walk
    (project / "shop" / "vendor").symlink_to(elsewhere)  # dangling for now
    _settle(project)
    assert "shop/vendor/lib.py" not in _walk(project)
    assert _remembered(project)["directories"]  # a link to nothing Python is remembered
    write(elsewhere, {"lib.py": "x = 1\n"})
    assert (project / "shop").stat().st_mtime < time.time() - 30  # `shop` itself is unchanged
    assert "shop/vendor/lib.py" in _warm(project)


def test_a_walk_through_a_directory_link_is_not_remembered(project: Path) -> None:
    (project / "shop" / "linked").symlink_to(project / "shop" / "orders")
    _settle(project)
    _walk(project)
    assert not (project / CACHE_DIR_NAME / LISTING_NAME).exists()
    found = _warm(project)
    assert sum(path.endswith("/views.py") for path in found) == 1  # one file, by two paths


def test_a_nested_configuration_file_is_not_remembered(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = {"pyproject.toml": "[tool.joblint]\n", "shop/joblint.toml": 'exclude = ["mail.py"]\n'}
    write(project, nested)
    _settle(project)
    monkeypatch.chdir(project)
    config = load(None)
    assert "shop/mail.py" not in _walk(project, config=config)
    assert not (project / CACHE_DIR_NAME / LISTING_NAME).exists()


def test_a_directory_changed_just_now_is_scanned_again(project: Path) -> None:
    (project / "shop" / "fresh.py").write_text("x = 1\n")  # `shop` changed just now
    _walk(project)
    entry = _remembered(project)["directories"]
    assert isinstance(entry, dict) and entry[str(project / "shop")][0] == [-1, -1]
    (project / "shop" / "fresher.py").write_text("x = 1\n")
    assert "shop/fresher.py" in _warm(project)


def test_a_damaged_listing_only_means_walking(project: Path) -> None:
    cold = _walk(project)
    (project / CACHE_DIR_NAME / LISTING_NAME).write_text('{"listings": {"x": [1]}')
    assert _warm(project) == cold
    (project / CACHE_DIR_NAME / LISTING_NAME).write_text(
        json.dumps({"listings": {k: {"watch": 1} for k in ("a", "b")}})
    )
    assert _warm(project) == cold


def test_a_named_run_sees_a_module_added_since(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A helper module added since the last run is part of the project model."""
    write(
        project,
        {
            "shop/tasks.py": (
                "from celery import shared_task\n\n@shared_task\ndef receipt(pk):\n    pass\n"
            ),
            "shop/views.py": (
                "from django.db import transaction\nfrom shop.notify import send\n\n"
                "def pay(order):\n    with transaction.atomic():\n        send(order.pk)\n"
            ),
        },
    )
    _settle(project)
    monkeypatch.chdir(project)

    def named() -> list[str]:
        run = lint_paths([Path("shop/views.py")], Config(root=project), RunOptions(cache=True))
        return [f"{f.path}:{f.span.line}:{f.code}" for f in run.findings]

    assert named() == []
    (project / "shop" / "notify.py").write_text(
        "from shop.tasks import receipt\n\ndef send(pk):\n    receipt.delay(pk)\n"
    )
    assert named() == ["shop/views.py:6:JL101"]
