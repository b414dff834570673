"""Scheduling a run: which files go through which step, in which pass.

`run` is the driver: it calls the passes (`passes/`, one module each, in
order: read, replay, screen, lint, the passes that read the rest of the
project on demand and lint again where it says a rule reports, syntax,
finish). What the passes share: `state.Run` (the worker pool, the cache,
the screenings, the jobs), `sources` (a run's files, read once),
`on_demand` (reading facts and index where findings need them),
`requirements` (what the results so far ask for), `words` and `by_module`
(searching files by name). `options` holds `RunOptions` (how to run) and
`CheckOptions` (the command line's options); `outcome` the `RunResult` and
the project step that settles it; `one_file` lints one file's bytes outside
a run (standard input, the fix loop, the editor). `workers` spreads files
over processes; `selection` gives each file its configuration's rules and
options; `project_files` and `deployment_files` read what a project says
outside its Python code (its test settings module, its `.env` and Compose
environments); `memo` remembers a run's outcome by everything it was
decided from.
"""
