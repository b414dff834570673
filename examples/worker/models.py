"""Models the worker claims (declared elsewhere in a real project)."""

from django.db import models


class Export(models.Model):
    state = models.CharField(max_length=20)
    created = models.DateTimeField(auto_now_add=True)


class Job:
    """SQLAlchemy-mapped queue row (mapping omitted)."""

    id = None
    status = None
