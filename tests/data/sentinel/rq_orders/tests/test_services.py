from sqlalchemy import delete

from orders import services
from orders.db import Order


def test_place_order(session):
    assert services.place_order(session, "A1")


def test_enqueue_before_flush(session):
    services.place_order_enqueue_before_flush(session, "A2")


def test_after_commit(session):
    services.place_order_then_send(session, "A3")


def test_on_commit(session):
    services.place_order_on_commit(session, "A4")


def test_read_only(session):
    services.count_and_report(session)


def test_core_transaction(engine):
    services.import_orders(engine, ["B1", "B2"])
    with engine.begin() as connection:
        connection.execute(delete(Order))


def test_payload(session, an_order):
    services.send_order_object(session)
