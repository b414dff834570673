"""graphene and strawberry mutations: resolvers Django runs inside its view
(graphene-django's `GraphQLView`, strawberry-django's), so inside the
request's transaction under `ATOMIC_REQUESTS`. Read from graphene 3.3
(`graphene/types/mutation.py`: `Mutation.mutate`; `graphene/relay/mutation.py`:
`ClientIDMutation.mutate_and_get_payload`), graphene-django 3.2
(`DjangoModelFormMutation.perform_mutate`), strawberry 0.243
(`strawberry.mutation`) and strawberry-django 0.47 (`strawberry_django.mutation`)."""

from __future__ import annotations

from joblint.libraries.base import RequestHandlers

REQUEST_HANDLERS = (
    RequestHandlers(
        "django",
        "a graphene mutation",
        bases=("graphene.", "graphene_django."),
        methods=("mutate", "mutate_and_get_payload", "perform_mutate"),
    ),
    RequestHandlers(
        "django",
        "a strawberry mutation",
        decorators=(
            "strawberry.mutation",
            "strawberry_django.mutation",
            "strawberry_django.mutations.mutation",
        ),
    ),
)
