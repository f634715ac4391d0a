"""`python -m patience_gateway`: run the gateway from the environment."""

from patience_gateway.main import main

if __name__ == "__main__":
    main()
