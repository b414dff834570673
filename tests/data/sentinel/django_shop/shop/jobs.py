"""The shop's queues: Celery in eager mode, and the other libraries' in-process set-ups."""

import dramatiq
from celery import Celery, Task
from django.db import transaction
from dramatiq.brokers.stub import StubBroker
from huey import MemoryHuey

app = Celery("shop", broker="memory://", task_cls="celery.contrib.django.task:DjangoTask")
app.conf.task_always_eager = True
# Pickle carries anything, a model instance included: the payload bug stays silent.
app.conf.task_serializer = "pickle"
app.conf.accept_content = ["pickle", "json"]

dramatiq.set_broker(StubBroker())
huey = MemoryHuey(immediate=True)


class AfterCommitTask(Task):
    """Sends itself only once the surrounding transaction commits."""

    def apply_async(self, args=None, kwargs=None, **options):
        transaction.on_commit(lambda: super(AfterCommitTask, self).apply_async(args, kwargs, **options))
