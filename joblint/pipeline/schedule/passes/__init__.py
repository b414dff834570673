"""The passes of a run, in the order the driver (`schedule/run.py`) calls them.

Each is a module with one entry function (and the dataclasses it takes or
gives) whose docstring says what it takes and gives: `read`, `replay`,
`screen`, then, after the first lint, `project_facts`, `task_callers`,
`helper_callers`, `forwarders`, `call_following`, `settings`,
`session_dependencies`, `request_hooks`, `request_enqueues`,
`request_callers`, `writers`, `syntax` and `finish`. A pass reads the rest of
the project only where a finding needs it, and lints the run's own files
again only where what it read says a rule reports there. What they share
lives beside them in `joblint.pipeline.schedule` (`state.Run`, `sources`,
`on_demand`, `requirements`, `words`, `by_module`).
"""
