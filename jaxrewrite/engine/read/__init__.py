"""The module's text read: offsets, lexing, the scopes, names resolved, transforms
recognised, markers, classes and fields, the pre-filters. Imports ``rules`` only."""
