"""How a run turns files into findings, in the order the data flows.

`discover` finds the files (with `listing` and `manifest` remembering the
project between runs); `screen` decides from each file's bytes, and where a
trigger needs it from Python's `ast`, which rules can fire there; `lint`
parses the rest with LibCST and runs the rules in one traversal; `index`
reads the files no rule reports on, cheaply, for the project model;
`project` settles what a file alone can't (pending findings, messages
naming chains of calls); `fix` turns fixes into text edits and applies them;
`report` writes the findings. `schedule` drives these steps over worker
processes, and `cache` remembers each file's result by its content.
Nothing here holds knowledge of a library: that is data in
`joblint.libraries` and `joblint.knowledge`.
"""
