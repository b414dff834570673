"""joblint: a linter for background-job code, plus reference runtime helpers."""

__version__ = "0.1.0"

# Where the project lives: SARIF rule help links point into its docs.
PROJECT_URL = "https://github.com/joblint/joblint"
DOCS_URL = f"{PROJECT_URL}/blob/main/docs"
