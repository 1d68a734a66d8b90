"""Command-line entry points (argparse); the library functions they call do the work.

Holds one module per command (``main(argv)`` and ``build_parser()``) and
``common`` (the pieces several commands share). A command parses its arguments
before it imports the numeric stack, so ``--help`` stays light
(``tests/project/test_cli_help.py``).

May import: ``utils``, ``tools`` and the rest of ``genotex``; no command imports
another command (shared pieces go to ``common``); nothing imports ``genotex.cli``
but the scripts at the top of the checkout.
"""
