"""`# sentinel: JLxxx` marks each line the sentinel must report."""

from sqlalchemy import insert, select

from joblint_runtime.transaction import on_commit

from .db import Order
from .jobs import audit, queue, send_receipt


def place_order(session, number):
    order = Order(number=number)
    session.add(order)
    session.flush()
    queue.enqueue(send_receipt, order.id)  # sentinel: JL101
    session.commit()
    return order.id


def place_order_enqueue_before_flush(session, number):
    order = Order(number=number)
    session.add(order)
    queue.enqueue_call(send_receipt, args=(number,))  # sentinel: JL101
    session.commit()


def place_order_then_send(session, number):
    order = Order(number=number)
    session.add(order)
    session.commit()
    queue.enqueue(send_receipt, order.id)
    queue.enqueue(audit, order.id)


def place_order_on_commit(session, number):
    order = Order(number=number)
    session.add(order)
    session.flush()
    on_commit(session, lambda: queue.enqueue(send_receipt, order.id))
    session.commit()


def count_and_report(session):
    total = len(session.scalars(select(Order)).all())
    queue.enqueue(send_receipt, total)  # reads only: nothing uncommitted for the job to miss
    session.rollback()


def import_orders(engine, numbers):
    with engine.begin() as connection:
        connection.execute(insert(Order), [{"number": n} for n in numbers])
        queue.enqueue(send_receipt, len(numbers))  # sentinel: JL101


def send_order_object(session):
    order = session.scalars(select(Order)).first()
    queue.enqueue(send_receipt, order)  # sentinel-payloads: JL201
