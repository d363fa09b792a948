"""Everything that draws: puzzle grids, page templates and books (reportlab)."""
