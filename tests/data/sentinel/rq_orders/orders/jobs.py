import os

from redis import Redis
from rq import Queue

# Jobs run in this process as they are enqueued (no worker needed in tests).
queue = Queue("orders", connection=Redis.from_url(os.environ["REDIS_URL"]), is_async=False)


def send_receipt(order_id):
    return order_id


def audit(order_id):
    # Runs as the job: its own enqueue is not inside the caller's transaction.
    queue.enqueue(send_receipt, order_id)
