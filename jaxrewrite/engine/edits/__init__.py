"""An ``Analysis`` to edits: planned, spelled (``render``) and spliced by offset. Imports
the places below it, never a finding pass."""
