"""Stripe (stripe-python): API calls that move money or create billing objects."""

from __future__ import annotations

from joblint.libraries.base import Library
from joblint.libraries.job_work import SideEffect

LIBRARIES = (Library("stripe", "Stripe", modules=("stripe",)),)

# The SDK gives every POST a random Idempotency-Key of its own, which keeps
# its network retries safe but not a job's: a rerun makes a new key.
_CREATES = (
    "Charge",
    "PaymentIntent",
    "Refund",
    "Transfer",
    "Payout",
    "Customer",
    "Invoice",
    "InvoiceItem",
    "Subscription",
    "checkout.Session",
)

SIDE_EFFECTS = (
    SideEffect(
        "makes a Stripe API call that creates an object",
        calls=(
            *(f"stripe.{resource}.create" for resource in _CREATES),
            "stripe.PaymentIntent.confirm",
            "stripe.PaymentIntent.capture",
            "stripe.Charge.capture",
        ),
        idempotency_keywords=("idempotency_key",),
        remedy="pass idempotency_key= derived from the job's arguments",
    ),
)
