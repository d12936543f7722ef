"""Ports of v2's python/paddle/v2/dataset/tests, on small generated files."""
