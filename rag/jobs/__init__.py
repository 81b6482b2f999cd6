"""Scheduled re-indexing: the jobs, their locks, the scheduler and full rebuilds."""
