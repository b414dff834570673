import dramatiq
from django_tasks import task as django_task

from .jobs import AfterCommitTask, app, huey
from .models import Order


@app.task
def send_receipt(order_id):
    return Order.objects.filter(pk=order_id).count()


@app.task
def record(*values):
    return len(values)


@app.task
def audit(order_id):
    # Runs in the worker: its own enqueue is not inside the caller's transaction.
    send_receipt.delay(order_id)


@app.task(base=AfterCommitTask)
def notify_warehouse(order_id):
    return order_id


@app.task
def welcome(email):
    return email


@app.task
def reindex(order_id):
    return order_id


@app.task
def load_orders(count):
    # The job's own writes: in production a worker makes them, in its own transaction.
    for number in range(count):
        Order.objects.create(number=f"L{number}")


@dramatiq.actor
def ship(order_id):
    return order_id


@huey.task()
def invoice(order_id):
    return order_id


def archive_order(order_id):
    return order_id


@django_task()
def refund(order_id):
    return order_id
