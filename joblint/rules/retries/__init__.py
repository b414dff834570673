"""Retries (JL301-JL303): retry policies that stampede, never stop, or retry everything.

Retries without jitter wake every client at once against the dependency that just
recovered (JL301); retries without a bound never stop (JL302); retrying on any exception
retries bugs (JL303).

`_facts/` reads retry policies from every spelling the retry libraries have (Celery task
options and `self.retry`, tenacity, backoff, hand-written loops) as data their modules in
`joblint.libraries` declare; `_base.py` is the rules' shared reading and fix plumbing.
"""
