from .tasks import send_receipt


def checkout(session, order):
    session.add(order)
    send_receipt.delay(order.id)  # expect: JL102
    session.commit()
