"""The ``graphgen`` subcommands, one module each: ``add_parser(commands)`` adds the
subcommand's argparse parser (its usage and help are the documentation) with its handler,
``run(args)``, which returns the exit status."""
