"""The signed reviewer decision (SPEC §6): the record, its SSH signature, verification."""
