"""Grading: reference models, the grader and the failure-replay simulator; the core never imports Django."""
