"""`uv run python -m scripts.make_samples`: see the package's docstring."""

from . import main

main()
