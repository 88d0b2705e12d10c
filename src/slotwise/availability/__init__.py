"""The deterministic availability calculator: a pure function of (snapshot, query, now)."""
