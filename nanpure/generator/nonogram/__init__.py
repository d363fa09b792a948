"""Nonograms (picross, griddlers): formats, line logic, solver, ladder, generator."""
