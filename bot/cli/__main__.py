"""`python -m bot.cli`: the same command line as `supportbot`."""

from bot.cli import main

main()
