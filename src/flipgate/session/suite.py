"""A suite workspace read for its audit (`flipgate suite`, the suite-health screen).

Apart from the rest of the session: the suite's reader imports pyarrow, which the gate on Parquet
never loads, so only what shows a suite imports this module.
"""

from __future__ import annotations

from flipgate.core.suite.workspace import SuiteInputs, is_suite_workspace
from flipgate.core.suite.workspace import load_suite as read_suite

__all__ = ["SuiteInputs", "is_suite_workspace", "read_suite"]
