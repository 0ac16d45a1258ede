"""A folder, not a package to import: the runner puts it first on its children's ``PYTHONPATH`` so
that their ``sitecustomize`` installs the runner's hook (jaxrewrite/commands/children.py). This file
only makes the folder part of the installed package."""
