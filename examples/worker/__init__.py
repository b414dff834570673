"""A small job worker: claims rows from a PostgreSQL queue table and guards
its periodic jobs with Redis locks. Lines marked `# JL4xx` are the bugs."""
