"""Scheduling a run: which files go through which step, in which pass.

`run` is the driver (discover, screen, lint, read facts and indexes on
demand, the project step, report); `workers` spreads files over processes;
`selection` gives each file its configuration's rules and options;
`project_files` and `deployment_files` read what a project says outside its
Python code (its test settings module, its `.env` and Compose
environments); `memo` remembers a run's outcome by everything it was
decided from.
"""
