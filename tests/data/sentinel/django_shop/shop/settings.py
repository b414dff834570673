SECRET_KEY = "sample"
DEBUG = True
USE_TZ = True
ROOT_URLCONF = "shop.urls"
ALLOWED_HOSTS = ["testserver"]
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django_q",
    "django_tasks",
    "shop",
]
MIDDLEWARE = []
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": "shop.sqlite3",
        # Every view runs inside a transaction, committed when it returns.
        "ATOMIC_REQUESTS": True,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
Q_CLUSTER = {"name": "shop", "orm": "default", "sync": True}
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
