"""Shared LibCST analysis: name resolution, values, transactions, tasks, context."""
