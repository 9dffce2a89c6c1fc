"""The four roles, as Django groups. A user may hold several; candidate is the default at sign-up."""

from enum import StrEnum

from django.contrib.auth.models import AnonymousUser, Group, Permission, User


class Role(StrEnum):
    CANDIDATE = "candidate"
    INTERVIEWER = "interviewer"
    AUTHOR = "author"
    ADMIN = "admin"


# Custom permissions each role's group carries (app_label.codename); declared on questions.Question's Meta.
ROLE_PERMISSIONS: dict[Role, list[str]] = {
    Role.CANDIDATE: ["practise_rounds"],
    Role.INTERVIEWER: ["practise_rounds", "interview_candidates"],
    Role.AUTHOR: ["practise_rounds", "author_questions"],
    Role.ADMIN: [
        "practise_rounds",
        "interview_candidates",
        "author_questions",
        "publish_questions",
        "moderate_discussion",
    ],
}


def roles_of(user: User | AnonymousUser) -> set[Role]:
    if not user.is_authenticated:
        return set()
    names = {group.name for group in user.groups.all()}
    roles = {role for role in Role if role.value in names}
    if user.is_superuser:
        roles.add(Role.ADMIN)
    return roles


def has_role(user: User | AnonymousUser, role: Role) -> bool:
    return role in roles_of(user)


def group_for(role: Role) -> Group:
    """The role's group; (re)created with its permissions when missing, e.g. after a database flush."""
    group, created = Group.objects.get_or_create(name=role.value)
    if created:
        group.permissions.set(
            Permission.objects.filter(
                content_type__app_label="questions", codename__in=ROLE_PERMISSIONS[role]
            )
        )
    return group
