"""Games defined outside arena, for the tests: each reaches arena only through its registry."""
