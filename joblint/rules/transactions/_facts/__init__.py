"""What only the transaction rules read, beyond what `joblint.analysis` shares.

JL101's questions each have a module here: which project callables may open a
transaction around an enqueue (`openers`), whether an enqueue runs only for a
created row (`created_rows`), whether the job depends on the transaction at all
(`job_dependence`), which lambdas run only when a factory's caller calls them
(`returned_callbacks`), which calls of the module's own functions lead to an
enqueue (`local_calls`), what every finding cites (`citations`), and how an
enqueue is deferred to COMMIT (`commit_fix`).
"""
