"""``python -m jaxrewrite``: the same command as the ``jaxrewrite`` console script."""

import sys

from jaxrewrite.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m jaxrewrite"))
