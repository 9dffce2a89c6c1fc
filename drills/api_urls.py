from django.urls import path

from drills import api

urlpatterns = [
    path("drills/next/", api.DrillNextApi.as_view(), name="api-drill-next"),
    path("drills/answer/", api.DrillAnswerApi.as_view(), name="api-drill-answer"),
    path("drills/progress/", api.DrillProgressApi.as_view(), name="api-drill-progress"),
]
