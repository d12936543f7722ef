"""Implementation of paddle_lite. Public names live in the top-level modules."""
