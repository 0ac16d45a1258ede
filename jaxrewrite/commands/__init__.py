"""The commands: run a program with the hook, show what it compiles."""
