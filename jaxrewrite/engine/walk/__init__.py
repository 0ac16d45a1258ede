"""The walk that builds the ``Analysis``; each use's keywords completed by its kind (``specs``)."""
