"""Command-line entry points (argparse); the library functions they call do the work."""
