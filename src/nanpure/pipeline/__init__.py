"""Orchestration: the only place with processes, files, databases and progress bars."""
