"""Ranking candidates against an incumbent by the release rule (seed 003): the campaign workspace
(`campaign.py`) and the three labels, highest mean, winner and whether it clears (`ranking.py`)."""
