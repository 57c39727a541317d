"""Files: one atomic writer, YAML read with line numbers, content digests."""
