from django.http import HttpRequest

from interview.roles import roles_of


def roles(request: HttpRequest) -> dict:
    user_roles = roles_of(request.user) if hasattr(request, "user") else set()
    return {"user_roles": {role.value for role in user_roles}}
