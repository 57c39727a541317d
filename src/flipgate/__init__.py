"""flipgate: triage a red LLM regression gate."""

__version__ = "0.1.0"
