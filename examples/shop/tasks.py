from celery import shared_task

from .celery import app


@shared_task
def send_receipt(order_id):
    from .models import Order

    order = Order.objects.get(pk=order_id)
    print(f"receipt for order {order.pk} to {order.email}")


@app.task(bind=True, max_retries=5)
def render_invoice(self, order_id):
    print(f"rendering invoice for {order_id}")


@shared_task
def notify_warehouse(order_id):
    print(f"warehouse notified about {order_id}")


@shared_task(time_limit=60 * 60)
def rebuild_search_index():
    print("rebuilding the search index")


def schedule_reindex():
    rebuild_search_index.apply_async(countdown=2 * 60 * 60)  # JL502: past the visibility timeout
