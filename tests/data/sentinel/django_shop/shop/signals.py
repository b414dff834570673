from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save
from django.dispatch import receiver

from .models import Customer, Order, Tag
from .tasks import reindex, welcome


@receiver(post_save, sender=Customer)
def greet(sender, instance, created, **kwargs):
    if created:
        welcome.delay(instance.email)  # sentinel: JL101


@receiver(m2m_changed, sender=Order.tags.through)
def tags_changed(sender, instance, action, **kwargs):
    if action == "post_add":
        reindex.delay(instance.pk)  # sentinel: JL101


@receiver(post_delete, sender=Tag)
def tag_removed(sender, instance, **kwargs):
    reindex.delay(instance.pk)  # sentinel: JL101


@receiver(post_migrate)
def seed(sender, **kwargs):
    # Runs while the test database is made, and reset after a transactional
    # test: the harness's doing, not a test's.
    with transaction.atomic():
        Tag.objects.get_or_create(name="seed")
        reindex.delay(0)
