from django.contrib.auth import views as auth_views
from django.urls import path

from interview.views import accounts, catalogue, practice

urlpatterns = [
    path("", catalogue.catalogue, name="home"),
    path("questions/<slug:slug>/", catalogue.question_detail, name="question-detail"),
    path("questions/<slug:slug>/check/", practice.practice_check, name="practice-check"),
    path("accounts/sign-up/", accounts.sign_up, name="sign-up"),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/logout/everywhere/", accounts.log_out_everywhere, name="logout-everywhere"),
    path("accounts/password/change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "accounts/password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/password/reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password/reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        accounts.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]

from interview.urls_community import community_urlpatterns  # noqa: E402

urlpatterns += community_urlpatterns

from interview.urls_rounds import round_urlpatterns  # noqa: E402

urlpatterns += round_urlpatterns

from interview.urls_authoring import authoring_urlpatterns  # noqa: E402

urlpatterns += authoring_urlpatterns

from interview.urls_interviewer import interviewer_urlpatterns  # noqa: E402

urlpatterns += interviewer_urlpatterns
