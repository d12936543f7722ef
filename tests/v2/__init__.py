"""v2's own Python unit tests, ported to paddle_lite (see README.md for their origin)."""
