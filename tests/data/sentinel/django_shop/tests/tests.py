from django.test import Client, TestCase

from shop import services


class ViewTests(TestCase):
    def test_checkout(self):
        response = Client().post("/checkout", {"number": "C1"})
        assert response.status_code == 200

    def test_checkout_outside_the_request_transaction(self):
        Client().post("/checkout-outside", {"number": "C2"})

    def test_refund_view_method(self):
        Client().post("/refunds")

    def test_status(self):
        Client().get("/status")

    def test_service_under_test_case(self):
        services.place_order("C3")
