"""The gate (SPEC §3, §4): spec, flaky list, outcomes, collapse, pairing, p, evidence, rules, reruns."""
