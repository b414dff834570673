from django.db import models


class Order(models.Model):
    email = models.EmailField()
    total_cents = models.IntegerField()
    paid = models.BooleanField(default=False)

    def delay(self, minutes):
        """Push the delivery slot back (a model method that happens to be called delay)."""
        self.delivery_delay_minutes = minutes
        self.save(update_fields=["delivery_delay_minutes"])


class Invoice(models.Model):
    order = models.OneToOneField(Order, on_delete=models.CASCADE)
    pdf = models.FileField(upload_to="invoices/")
