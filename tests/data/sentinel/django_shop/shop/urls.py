from django.urls import path

from . import views

urlpatterns = [
    path("checkout", views.checkout),
    path("checkout-outside", views.checkout_outside),
    path("status", views.status),
    path("refunds", views.Refunds.as_view()),
]
