"""Where jaxrewrite meets tools that compile code themselves: IPython/Jupyter cells and pytest.

Each integration is imported only by the tool that uses it (``%load_ext jaxrewrite``, pytest's
``pytest11`` entry point), so ``import jaxrewrite`` never pays for IPython or pytest.
"""
