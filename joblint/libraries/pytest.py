"""pytest: what tests that an error is raised; its names are no project code."""

from __future__ import annotations

from joblint.libraries.base import Library

# In reach of test code only; its decorators (`@pytest.fixture`) are never
# the project's own.
LIBRARIES = (Library("pytest", "pytest", modules=("pytest", "_pytest")),)

# `with pytest.raises(E):` / `pytest.raises(E, func)`.
ERROR_TEST_FUNCTIONS = ("pytest.raises",)
