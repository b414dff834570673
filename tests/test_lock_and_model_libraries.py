"""Adding a lock library or a model library is adding one module.

As in test_extending: the package is copied to a temporary directory, one
module per library is added to its `joblint.libraries`, the docs and the rule
catalogue are regenerated in the copy, and the copy lints a project using the
libraries: the lock rules and the payload rules judge the new libraries' calls
and classes by their data, and the prefilter lets their files through.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOCK_LIBRARY = '''"""Acme Mutex: a lock library joblint did not know."""

from __future__ import annotations

from joblint.libraries.locking import LockApi

# Mutex(name, ttl=None)
LOCK_APIS = (
    LockApi(
        "acmemutex.Mutex(...)",
        qualname="acmemutex.Mutex",
        expiry_keyword="ttl",
        expiry_position=1,
    ),
)
'''

MODEL_LIBRARY = '''"""Acme ORM: a model library joblint did not know."""

from __future__ import annotations

from joblint.libraries.objects import Family, ObjectKind

RECORD = "acme_record"

OBJECT_KINDS = (
    ObjectKind(
        RECORD,
        Family.ROW,
        "an Acme record",
        "{text}.key and re-fetch it in the task",
        key_attribute="key",
    ),
)
BASE_CLASS_KINDS = (("acmeorm.Record", RECORD),)
'''

NIGHTLY = """from acmemutex import Mutex


def nightly():
    with Mutex("nightly"):
        build()
    with Mutex("weekly", ttl=600):
        build()
"""

CHECKOUT = """from acmeorm import Record
from celery import shared_task


class Order(Record):
    pass


@shared_task
def send_receipt(order_id): ...


def checkout(order: Order):
    send_receipt.delay(order)
"""


def _python(copy: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(copy), "NO_COLOR": "1"},
        timeout=300,
        check=False,
    )


def test_lock_and_model_libraries_added_as_modules_are_judged(tmp_path: Path) -> None:
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", ".joblint_cache")
    shutil.copytree(ROOT / "joblint", copy / "joblint", ignore=ignore)
    (copy / "docs" / "rules").mkdir(parents=True)
    (copy / "joblint" / "libraries" / "acmemutex.py").write_text(LOCK_LIBRARY)
    (copy / "joblint" / "libraries" / "acmeorm.py").write_text(MODEL_LIBRARY)
    docs = _python(copy, "-m", "joblint.docs_gen", cwd=copy)
    assert docs.returncode == 0, docs.stderr
    # The lock rule's prefilter trigger came from the library's data.
    assert "acmemutex" in (copy / "joblint" / "rules" / "_catalog.py").read_text()

    project = tmp_path / "shop"
    project.mkdir()
    (project / "nightly.py").write_text(NIGHTLY)
    (project / "checkout.py").write_text(CHECKOUT)
    done = _python(copy, "-m", "joblint", "check", "--format", "json", ".", cwd=project)
    assert done.returncode in (0, 1), done.stderr
    found = {(f["code"], f["path"], f["line"]): f["message"] for f in json.loads(done.stdout)}
    assert set(found) == {("JL402", "nightly.py", 5), ("JL201", "checkout.py", 14)}
    assert str(found["JL402", "nightly.py", 5]).startswith(
        "acmemutex.Mutex(...) without ttl= never expires"
    )
    assert str(found["JL201", "checkout.py", 14]).startswith(
        "'order' is an Acme record (Order) passed to send_receipt.delay(): pass order.key"
    )
