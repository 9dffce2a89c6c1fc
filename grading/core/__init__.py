"""The pure grading core: the reference-model language, the grader, the design and review checks, scoring
and the failure-replay simulator. Plain Python over dataclasses and numpy; it imports nothing from Django or
from the apps (an import-linter contract in `make lint` keeps it so)."""
