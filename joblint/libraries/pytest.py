"""pytest: what tests that an error is raised."""

from __future__ import annotations

# `with pytest.raises(E):` / `pytest.raises(E, func)`.
ERROR_TEST_FUNCTIONS = ("pytest.raises",)
