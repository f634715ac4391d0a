"""`python -m patience_engine`: the same as the `patience-engine` command."""

from patience_engine.server import main

if __name__ == "__main__":
    main()
