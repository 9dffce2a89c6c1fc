from django.apps import AppConfig


class InterviewConfig(AppConfig):
    name = "interview"
    verbose_name = "Interviews"
