"""Ports of v2's python/paddle/v2/reader/tests."""
