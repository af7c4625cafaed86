"""The randomized schedule test's machinery (tests/python/test_random_schedules.py)."""
