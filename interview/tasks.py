"""Celery tasks of the interview app: each calls one service."""

from celery import shared_task

from interview.services.grading import rounds_complete_reviews


@shared_task(name="interview.complete_reviews", ignore_result=True)
def complete_reviews() -> int:
    """Periodic: fold finished replays into the reports of review rounds nobody has looked at since."""
    return rounds_complete_reviews()
