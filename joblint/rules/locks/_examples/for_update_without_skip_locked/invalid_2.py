"""INVALID examples of `joblint.rules.locks.for_update_without_skip_locked`, part of its
suite (the parts keep the suite's order)."""

from __future__ import annotations

from joblint.rule import invalid

INVALID = (
    invalid(
        """
from sqlalchemy import select

from .models import Parcel


def oldest_sorted(session):
    return session.scalars(
        select(Parcel)
        .where(Parcel.stage == "sorted")
        .order_by(Parcel.weight)
        .with_for_update()
    ).first()


async def next_for_van(session, van):
    stmt = select(Parcel).where(Parcel.stage == "sorted", Parcel.region == "north")
    result = await session.execute(stmt.with_for_update())
    return result.scalars().first()


def held_parcel(session):
    held = session.query(Parcel).filter(Parcel.stage == "held")
    return held.with_for_update(read=True).first()
""",
        (12, 10, "its caller 'load' claims it at app/depot.py:6"),
        (18, 41, "its caller 'load_van' claims it at app/depot.py:15"),
        (
            24,
            17,
            "with_for_update(read=True) takes FOR SHARE on a query that picks the next row "
            "(.first()) (it returns what it locks, and its caller 'release' claims it at "
            "app/depot.py:21)",
        ),
        fixed="""
from sqlalchemy import select

from .models import Parcel


def oldest_sorted(session):
    return session.scalars(
        select(Parcel)
        .where(Parcel.stage == "sorted")
        .order_by(Parcel.weight)
        .with_for_update(skip_locked=True)
    ).first()


async def next_for_van(session, van):
    stmt = select(Parcel).where(Parcel.stage == "sorted", Parcel.region == "north")
    result = await session.execute(stmt.with_for_update(skip_locked=True))
    return result.scalars().first()


def held_parcel(session):
    held = session.query(Parcel).filter(Parcel.stage == "held")
    return held.with_for_update(skip_locked=True).first()
""",
        id="first-of-a-locking-result-returned-to-a-claiming-caller",
        app_depot="""
from app.example import held_parcel, next_for_van, oldest_sorted


def load(session):
    parcel = oldest_sorted(session)
    if parcel is None:
        return
    parcel.stage = "loading"
    session.commit()


async def load_van(session, van):
    async with session.begin():
        parcel = await next_for_van(session, van)
        if parcel is not None:
            await session.delete(parcel)


def release(session):
    parcel = held_parcel(session)
    parcel.stage = "released"
    session.commit()
""",
    ),
    invalid(
        """
from sqlalchemy import select

from .models import Parcel


class Belt:
    def __init__(self, session):
        self.session = session

    def next_batch(self, size):
        stmt = select(Parcel).where(Parcel.stage == "sorted").limit(size)
        return list(self.session.scalars(stmt.with_for_update()).all())


def held_batch(session, n):
    return list(
        session.scalars(
            select(Parcel).where(Parcel.stage == "held").limit(n).with_for_update()
        )
    )
""",
        (13, 47, "its caller 'run_belt' claims it at app/belt.py:7"),
        (19, 67, "its caller 'run_belt' claims it at app/belt.py:9"),
        fixed="""
from sqlalchemy import select

from .models import Parcel


class Belt:
    def __init__(self, session):
        self.session = session

    def next_batch(self, size):
        stmt = select(Parcel).where(Parcel.stage == "sorted").limit(size)
        return list(self.session.scalars(stmt.with_for_update(skip_locked=True)).all())


def held_batch(session, n):
    return list(
        session.scalars(
            select(Parcel).where(Parcel.stage == "held").limit(n).with_for_update(skip_locked=True)
        )
    )
""",
        id="locked-batch-returned-as-a-list-to-a-claiming-caller",
        app_belt="""
from app.example import Belt, held_batch


def run_belt(session):
    belt = Belt(session)
    for parcel in belt.next_batch(20):
        parcel.stage = "on-belt"
    batch = held_batch(session, 5)
    for held in batch:
        session.delete(held)
    session.commit()
""",
    ),
)
