"""What JAX accepts and what each finding code says: the transform table, the concrete
parameters derived from JAX, the codes and the diagnostics. Imports nothing else of the engine."""
