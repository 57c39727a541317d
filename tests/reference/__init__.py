"""What the tests check flipgate against, written apart from it: the gate's rules the plain way
(`gate.py`, json.loads and dict loops), and a deterministic generator of large, sound runs
(`generate.py`).

Used only by the tests, which import them. The benchmarks (bench/, not part of the package) run
them as scripts by path, as they run flipgate: the reference is their yardstick and the generator
writes their data. So the tests never depend on bench, and bench imports nothing from tests.
"""
