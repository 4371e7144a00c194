"""`python -m rendersafe`: the same as the `rendersafe` command."""

from .cli import main

main()
