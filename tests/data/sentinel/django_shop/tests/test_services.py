import pytest
from django.db import transaction

from shop import services
from shop.models import Order, Tag
from shop.tasks import send_receipt

pytestmark = pytest.mark.django_db


def test_place_order():
    assert services.place_order("A1").pk


def test_enqueue_first():
    services.place_order_enqueue_first("A2")


def test_cancel():
    services.cancel(Order.objects.create(number="A3"))


def test_on_commit_look_alikes(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.place_order_on_commit("A4")


def test_after_the_transaction():
    services.place_order_then_send("A5")


def test_read_only_transaction():
    services.count_and_report()


def test_get_or_create_signal():
    services.ensure_customer("a@example.com")


def test_m2m_signal():
    services.tag_order(Order.objects.create(number="A6"), "gift")


def test_delete_signal():
    services.remove_tag(Tag.objects.create(name="old"))


def test_the_tests_own_transaction_and_m2m():
    # The test's own doing: neither is the code under test.
    with transaction.atomic():
        order = Order.objects.create(number="A7")
        send_receipt.delay(order.pk)
    order.tags.add(Tag.objects.create(name="direct"))
    Tag.objects.create(name="gone").delete()


def test_other_libraries():
    services.bill(Order.objects.create(number="A8"))


def test_eager_job_writes_are_not_the_transactions():
    services.start_import(2)
    assert Order.objects.filter(number__startswith="L").count() == 2


def test_payload_kinds(django_capture_on_commit_callbacks):
    order = Order.objects.create(number="A10")
    customer = services.ensure_customer("b@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        services.send_ids_and_objects(order, customer)


def test_payload():
    services.send_order_object(Order.objects.create(number="A9"))


@pytest.mark.django_db(transaction=True)
def test_real_commit():
    services.place_order("B1")
    services.place_order_on_commit("B2")
