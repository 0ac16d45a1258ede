"""The walk that builds the ``Analysis``: decorators, registrations and call sites, each
use's keywords completed by its spec kind (``specs``). Imports ``read``, ``rules`` and the
``analysis`` value."""
