"""The index's plain classes: what LibCST's facts say of them, told by `ast`."""

from __future__ import annotations

import ast

import pytest
from conftest import our_sources

from joblint.index import index_source
from joblint.index.plain import plain_classes
from joblint.models import ClassFacts
from joblint.pipeline.lint import lint_source
from joblint.settings import LintSettings, ModuleInfo, Options

# (source, the classes that may be plain)
CASES = [
    ("class Mailer:\n    pass\n", ["Mailer"]),
    ("class Mailer(Base):\n    def send(self):\n        pass\n", ["Mailer"]),
    # Named in annotations, checks and strings: read, not bound.
    (
        "class Mailer:\n    pass\n\ndef get() -> Mailer:\n    return Mailer()\n\n"
        "def check(x):\n    return isinstance(x, Mailer) and 'Mailer.send'\n",
        ["Mailer"],
    ),
    # A function's own name of the same spelling binds in the function.
    ("class Mailer:\n    pass\n\ndef f():\n    Mailer = 1\n    return Mailer\n", ["Mailer"]),
    # Decorators and keywords may give it a kind.
    ("import dataclasses\n\n@dataclasses.dataclass\nclass Point:\n    x: int\n", []),
    ("class Color(metaclass=EnumMeta):\n    RED = 1\n", []),
    ("class Hero(SQLModel, table=True):\n    id: int\n", []),
    # Every way of binding the name again at module level.
    ("class Mailer:\n    pass\n\nMailer = wrap(Mailer)\n", []),
    ("class Mailer:\n    pass\n\nMailer: type = wrap(Mailer)\n", []),
    ("class Mailer:\n    pass\n\nfrom mail import Mailer\n", []),
    ("class Mailer:\n    pass\n\nimport Mailer\n", []),
    ("class Mailer:\n    pass\n\nimport mail as Mailer\n", []),
    ("class Mailer:\n    pass\n\ndef later():\n    global Mailer\n    Mailer = None\n", []),
    ("class Mailer:\n    pass\n\ndel Mailer\n", []),
    ("class Mailer:\n    pass\n\nfor Mailer in range(3):\n    pass\n", []),
    ("class Mailer:\n    pass\n\nwith open('f') as Mailer:\n    pass\n", []),
    ("class Mailer:\n    pass\n\ntry:\n    pass\nexcept ValueError as Mailer:\n    pass\n", []),
    ("class Mailer:\n    pass\n\nif (Mailer := 3):\n    pass\n", []),
    ("class Mailer:\n    pass\n\nx = [(Mailer := y) for y in z]\n", []),
    ("class Mailer:\n    pass\n\ndef f(a=(Mailer := 1)):\n    pass\n", []),
    ("class Mailer:\n    pass\n\nmatch 1:\n    case Mailer:\n        pass\n", []),
    ("class Mailer:\n    pass\n\nclass Mailer:\n    pass\n", []),
    ("class Mailer:\n    pass\n\ndef Mailer():\n    pass\n", []),
    ("class Mailer:\n    pass\n\nif x:\n    Mailer = None\n", []),
    ("class Mailer:\n    pass\n\nfrom mail import *\n", []),
    # Only a class defined at the top level.
    ("if x:\n    class Mailer:\n        pass\n", []),
    # A unique key may be declared: the facts carry it, the index doesn't.
    ("class Order(Model):\n    code = CharField(unique=True)\n", []),
    ("class Order(Model):\n    code = CharField(primary_key=True)\n", []),
    ("class Order(Model):\n    class Meta:\n        unique_together = ('a', 'b')\n", []),
    ("class Order(Model):\n    '''Unique per shop.'''\n", []),  # prose: conservative
    ("class Order(Model):\n    pass\n\nclass Code(Model):\n    x = F(unique=True)\n", ["Order"]),
]


@pytest.mark.parametrize(("source", "plain"), CASES)
def test_plain_classes(source: str, plain: list[str]) -> None:
    assert plain_classes(ast.parse(source), source.encode()) == plain
    assert plain_classes(ast.parse(source), source) == plain


# (source, the classes the index tells are plain)
INDEX_CASES = [
    ("class Mailer:\n    pass\n", ["Mailer"]),
    ("from abc import ABC\n\nclass Mailer(ABC):\n    pass\n", ["Mailer"]),
    ("from .base import Base\n\nclass Mailer(Base):\n    pass\n", ["Mailer"]),
    ("class Base:\n    pass\n\nclass Mailer(Base):\n    pass\n", ["Base", "Mailer"]),
    # A base it can't resolve, or one that gives the class a kind.
    ("class Mailer(Unknown):\n    pass\n", []),
    ("class Mailer(make_base()):\n    pass\n", []),
    ("from django.db import models\n\nclass Order(models.Model):\n    pass\n", []),
    ("import enum\n\nclass Color(enum.Enum):\n    RED = 1\n", []),
    ("from pydantic import BaseModel\n\nclass Event(BaseModel):\n    kind: str\n", []),
    # A class-based task, whatever module its base comes from.
    ("from celery import Task\n\nclass Send(Task):\n    pass\n", []),
    ("from .base import Task\n\nclass Send(Task):\n    pass\n", []),
]


@pytest.mark.parametrize(("source", "plain"), INDEX_CASES)
def test_the_index_tells_plain_classes_whose_bases_it_resolves(
    source: str, plain: list[str]
) -> None:
    _agrees_with_facts(source)
    index = index_source(source.encode(), ModuleInfo("app.example"), Options())
    assert index is not None
    assert index.plain_classes == tuple(f"app.example.{name}" for name in plain)


@pytest.mark.parametrize(("source", "plain"), CASES)
def test_the_cases_agree_with_the_facts(source: str, plain: list[str]) -> None:
    _agrees_with_facts(source)


def test_every_example_and_fixture_agrees_with_the_facts() -> None:
    told = sum(_agrees_with_facts(source) for source in our_sources())
    assert told > 20  # the test reads plain classes, not only their absence


def _agrees_with_facts(source: str, module: str = "app.example") -> int:
    """Each class the index tells is plain is, in the facts, a plain
    definition whose `ClassFacts` are its bases as the index read them, and
    no task. Returns how many it told."""
    info = ModuleInfo(module)
    index = index_source(source.encode(), info, Options())
    if index is None:
        return 0
    facts = lint_source("app/example.py", source.encode(), LintSettings(frozenset()), info).facts
    classes = {c.qualname: c for c in facts.classes}
    tasks = {t.qualname for t in facts.tasks}
    bases = dict(index.classes)
    for qualname in index.plain_classes:
        assert qualname in facts.plain_definitions and qualname not in tasks, source
        assert classes.get(qualname) == ClassFacts(qualname, bases[qualname]), source
    return len(index.plain_classes)
