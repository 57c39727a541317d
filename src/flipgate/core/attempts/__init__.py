"""The ledger of attempts (issue 24): every gate of a change remembered, chained, and read back.

`entry` (one attempt, its canonical text and chain), `ledger` (the interface and where a ledger
is), `sqlite` and `notes` (the two backends), `judging` (a new gate judged with the earlier ones:
its look, and the PASS refused after a BLOCK or INCONCLUSIVE), `history` (a change's attempts, a
case across gates, flaky candidates).
"""
