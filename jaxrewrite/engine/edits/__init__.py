"""An ``Analysis`` to edits (``render``), spliced by offset (``splice``); never asks a pass."""
