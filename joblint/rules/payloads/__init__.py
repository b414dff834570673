"""Payloads (JL201-JL202): what must never travel in a job's arguments.

An ORM object or other live object in a payload is stale by the time the job runs, and a
pickled one breaks in-flight jobs at the next deploy (JL201); an enum, dataclass or model
instance ties the payload to code that changes under it: pass primitive values (JL202).

`_screen/` holds the family's AST confirm step: whether an enqueue's payload may hold
such an object, read on Python's own `ast` before a file goes to LibCST.
"""
