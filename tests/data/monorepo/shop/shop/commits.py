from .tasks import send_receipt


def checkout(session, order):
    session.add(order)
    send_receipt.delay(order.id)
    session.commit()
