from django.urls import path

from fraud.api import views

urlpatterns = [
    path("fraud/cases/", views.CaseListView.as_view(), name="fraud-cases"),
    path("fraud/cases/<id:case_id>/", views.CaseDetailView.as_view(), name="fraud-case"),
    path(
        "fraud/cases/<id:case_id>/assign/",
        views.CaseAssignView.as_view(),
        name="fraud-case-assign",
    ),
    path(
        "fraud/cases/<id:case_id>/review/",
        views.CaseReviewView.as_view(),
        name="fraud-case-review",
    ),
    path("fraud/cases/<id:case_id>/note/", views.CaseNoteView.as_view(), name="fraud-case-note"),
    path(
        "fraud/cases/<id:case_id>/dismiss/",
        views.CaseDismissView.as_view(),
        name="fraud-case-dismiss",
    ),
    path(
        "fraud/cases/<id:case_id>/confirm/",
        views.CaseConfirmView.as_view(),
        name="fraud-case-confirm",
    ),
]
