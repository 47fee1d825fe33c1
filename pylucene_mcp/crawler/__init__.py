"""Folders in, index follows: walk → extract (Tika server) → batch → commit; reconcile; watch."""
