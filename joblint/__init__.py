"""joblint: a linter for background-job code, plus reference runtime helpers."""

__version__ = "0.1.0"
