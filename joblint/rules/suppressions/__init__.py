"""Suppressions (JL002): suppression comments that suppress nothing.

JL002 judges the `# noqa`/`# joblint:` comments against what the other rules found; it is
the only rule that runs after the others.
"""
