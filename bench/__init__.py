"""Measured speed of patience-engine: the rules library, the engine over gRPC, the
gateway over HTTP, cost as a game grows, and a Locust load test.

`python -m bench` runs every part and writes `bench/results/latest.md`;
`python -m bench --help` lists the knobs; bench/README.md explains the layout and
each figure.
"""
