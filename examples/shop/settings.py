"""Django settings for the example shop (only what the job rules read)."""

import os

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("DB_NAME", "shop"),
    }
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://localhost:6379/0")
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 30 * 60,  # JL501: tasks.rebuild_search_index may run for an hour
}
CELERY_TASK_SOFT_TIME_LIMIT = 300
