"""A folder put first on the runner's children's ``PYTHONPATH`` (commands/run.py)."""
