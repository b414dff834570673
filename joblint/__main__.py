from joblint.cli import main

main(prog_name="joblint")
