"""The locks family's facts: lock calls, their clients, SQL and ORM row locks."""
