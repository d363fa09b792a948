"""Everything that writes data for other programs or people: datasets and statistics."""
