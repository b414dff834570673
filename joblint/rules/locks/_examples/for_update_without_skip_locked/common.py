"""What several parts of the example suite
`joblint.rules.locks._examples.for_update_without_skip_locked` share."""

from __future__ import annotations

_DJANGO_MODELS = """
from django.db import models


class Stamped(models.Model):
    serial = models.CharField(max_length=40, unique=True)

    class Meta:
        abstract = True


class Report(Stamped):
    slug = models.SlugField(unique=True)
    kind = models.CharField(max_length=20)
    state = models.CharField(max_length=20)


class Wallet(models.Model):
    holder = models.OneToOneField("auth.User", on_delete=models.CASCADE)
    frozen = models.BooleanField(default=False)
    balance = models.IntegerField(default=0)


class Seat(models.Model):
    hall = models.CharField(max_length=20)
    row = models.IntegerField()
    number = models.IntegerField()
    taken = models.BooleanField(default=False)

    class Meta:
        unique_together = ("hall", "row", "number")


class Ticket(models.Model):
    event = models.ForeignKey("app.Event", on_delete=models.CASCADE)
    code = models.CharField(max_length=12)
    used = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "code"], name="one_code_per_event"),
        ]
"""

_SQLALCHEMY_MODELS = """
from sqlalchemy import Column, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Voucher(Base):
    __tablename__ = "vouchers"
    __table_args__ = (UniqueConstraint("campaign", "token"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign: Mapped[str] = mapped_column(String(20))
    token: Mapped[str] = mapped_column(String(32))
    spent: Mapped[bool] = mapped_column(default=False)


class Mailbox(Base):
    __tablename__ = "mailboxes"

    address = Column(String(200), unique=True)
    quota = Column(Integer)


class Parcel(Base):
    __tablename__ = "parcels"

    id: Mapped[int] = mapped_column(primary_key=True)
    label: Mapped[str] = mapped_column(String(40))
    stage: Mapped[str] = mapped_column(String(20))
    region: Mapped[str] = mapped_column(String(10))
    weight: Mapped[int] = mapped_column(default=0)


class Shard(Base):
    __tablename__ = "shards"

    region = Column(String(10), primary_key=True)
    number = Column(Integer, primary_key=True)
    owner = Column(String(40))
"""
