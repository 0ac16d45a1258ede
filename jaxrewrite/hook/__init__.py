"""Where the engine plugs into imports: the finder, the pipeline and its cache."""
