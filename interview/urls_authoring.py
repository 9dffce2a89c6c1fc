from django.urls import path

from interview.views import authoring

authoring_urlpatterns = [
    path("authoring/", authoring.home, name="authoring-home"),
    path("authoring/drafts/new/", authoring.draft_new, name="authoring-draft-new"),
    path("authoring/drafts/<int:draft_id>/", authoring.draft_edit, name="authoring-draft"),
    path("authoring/drafts/<int:draft_id>/model-check/", authoring.model_check, name="authoring-model-check"),
    path(
        "authoring/drafts/<int:draft_id>/follow-ups-check/",
        authoring.depth_check,
        {"section": "follow_ups"},
        name="authoring-follow-ups-check",
    ),
    path(
        "authoring/drafts/<int:draft_id>/curveballs-check/",
        authoring.depth_check,
        {"section": "curveballs"},
        name="authoring-curveballs-check",
    ),
    path("authoring/drafts/<int:draft_id>/preview/", authoring.preview, name="authoring-preview"),
    path("authoring/drafts/<int:draft_id>/samples/", authoring.sample_new, name="authoring-sample-new"),
    path("authoring/drafts/<int:draft_id>/publish/", authoring.publish, name="authoring-publish"),
    path("authoring/drafts/<int:draft_id>/delete/", authoring.draft_delete, name="authoring-draft-delete"),
    path("authoring/drafts/<int:draft_id>/restart/", authoring.draft_restart, name="authoring-draft-restart"),
    path("authoring/drafts/<int:draft_id>/carry/", authoring.draft_carry, name="authoring-draft-carry"),
    path(
        "authoring/samples/<int:sample_id>/accept/",
        authoring.sample_accept_view,
        name="authoring-sample-accept",
    ),
    path(
        "authoring/samples/<int:sample_id>/delete/", authoring.sample_delete, name="authoring-sample-delete"
    ),
    path("authoring/questions/<slug:slug>/edit/", authoring.question_edit, name="authoring-question-edit"),
    path("authoring/questions/<slug:slug>/versions/", authoring.versions, name="authoring-versions"),
    path("authoring/questions/<slug:slug>/diff/", authoring.diff, name="authoring-diff"),
    path(
        "authoring/questions/<slug:slug>/versions/<int:number>/republish/",
        authoring.republish,
        name="authoring-republish",
    ),
    path("authoring/packs/", authoring.packs, name="authoring-packs"),
    path("authoring/packs/export/", authoring.pack_export, name="authoring-pack-export"),
    path("authoring/packs/import/", authoring.pack_import_view, name="authoring-pack-import"),
    path("authoring/publishers/", authoring.publishers, name="authoring-publishers"),
]
