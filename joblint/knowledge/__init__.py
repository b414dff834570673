"""Library knowledge as data: what enqueues, what opens a transaction, defaults."""
