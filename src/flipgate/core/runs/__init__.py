"""Runs (SPEC §2): the model of a run, reading and validating its lines, finding a workspace's runs."""
