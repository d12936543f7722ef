"""Layer families, one module each. The public ``paddle_lite.layer`` imports them all."""
