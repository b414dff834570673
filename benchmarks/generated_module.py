"""A generated 50,000-line module of job code, joblint's worst single file.

    python benchmarks/generated_module.py --out /tmp/joblint-bench/generated [--lines 50000]

Writes `generated/jobs.py` (deterministic: the same bytes every time) under
`--out`, with a `pyproject.toml` beside it. Every block is what LibCST must
parse and every rule family looks at: a model, a Celery task retrying with a
fixed countdown, a view enqueueing that task inside `transaction.atomic()`
for the row it just created, and a Redis lock taken without an expiry. So no
part of the file is screened out: it is the most a module of that size can
cost. Prints the path written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HEADER = '''"""Generated: order synchronisation jobs."""

from celery import shared_task
from django.db import models, transaction
from redis import Redis

redis = Redis()


def push(value):
    return value

'''

BLOCK = """
class Order{n}(models.Model):
    total = models.IntegerField(default=0)


@shared_task(bind=True, max_retries=3)
def sync_order_{n}(self, order_id):
    order = Order{n}.objects.get(pk=order_id)
    try:
        push(order.total)
    except Exception as exc:
        raise self.retry(exc=exc, countdown=5)


def place_order_{n}(request):
    with transaction.atomic():
        order = Order{n}.objects.create(total=1)
        sync_order_{n}.delay(order.pk)
    return order


def nightly_{n}():
    if redis.setnx("nightly-{n}", 1):
        push({n})
"""


def module_text(lines: int) -> str:
    """The header and as many blocks as fit in `lines` lines."""
    header_lines = HEADER.count("\n")
    block_lines = BLOCK.count("\n")
    blocks = max(1, (lines - header_lines) // block_lines)
    return HEADER + "".join(BLOCK.format(n=n) for n in range(blocks))


def write_module(out: Path, lines: int) -> Path:
    package = out / "generated"
    package.mkdir(parents=True, exist_ok=True)
    (out / "pyproject.toml").write_text('[project]\nname = "generated"\nversion = "0"\n')
    (package / "__init__.py").write_text("")
    path = package / "jobs.py"
    path.write_text(module_text(lines))
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--lines", type=int, default=50_000)
    args = parser.parse_args(argv)
    print(write_module(args.out, args.lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
