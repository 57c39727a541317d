"""The gate (SPEC §3): its spec, the flaky list, decision outcomes, the collapse, pairing and the verdict."""
