"""The operations a Workspace offers, one module per family of the spec's endpoints."""
