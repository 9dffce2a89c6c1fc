"""The client's address: REMOTE_ADDR, or behind trusted proxies the last X-Forwarded-For hop they did not
add.

Each proxy appends the address it saw, so the list is read from the right; entries a client wrote itself sit
to the left of the first untrusted hop and are never reached. With no TRUSTED_PROXIES the header is ignored.
"""

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _is_trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.TRUSTED_PROXIES)


def client_address(request: HttpRequest | None) -> str:
    if request is None:
        return "unknown"
    address = request.META.get("REMOTE_ADDR") or "unknown"
    if not _is_trusted_proxy(address):
        return address
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted_proxy(hop):
            return hop
        address = hop
    return address
