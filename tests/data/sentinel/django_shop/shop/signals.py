from django.db.models.signals import m2m_changed, post_save
from django.dispatch import receiver

from .models import Customer, Order
from .tasks import reindex, welcome


@receiver(post_save, sender=Customer)
def greet(sender, instance, created, **kwargs):
    if created:
        welcome.delay(instance.email)  # sentinel: JL101


@receiver(m2m_changed, sender=Order.tags.through)
def tags_changed(sender, instance, action, **kwargs):
    if action == "post_add":
        reindex.delay(instance.pk)  # sentinel: JL101
