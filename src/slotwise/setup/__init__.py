"""Setup and catalogue operations, one module per family of the spec's setup interface."""
