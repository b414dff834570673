"""Exchange rates, refreshed by a task that retries when the rates service is down."""

import requests
from celery import shared_task


@shared_task(bind=True, max_retries=4)
def refresh_exchange_rates(self):
    try:
        response = requests.get("https://rates.example.com/latest", timeout=10)
        response.raise_for_status()
    except requests.RequestException as exc:
        raise self.retry(exc=exc, countdown=10 * 2**self.request.retries)  # JL301: every shop retries at the same instants
    return response.json()
