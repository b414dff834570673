"""`python -m joblint`.

`-m` puts the current directory first on `sys.path`: a project's own `json.py`
or `click.py` would then shadow the real module and run as joblint starts.
joblint never runs the code it reads, so that entry goes before anything else
is imported (`joblint` itself is already loaded; its submodules come from it).
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()) and not getattr(sys.flags, "safe_path", False):
    del sys.path[0]

from joblint.cli import main  # after the sys.path fix above

main(prog_name="joblint")
