"""``python -m kenning``: the command line."""

from kenning.cli import main

main()
