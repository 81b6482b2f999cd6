"""Metrics (Prometheus) and structured logs."""
