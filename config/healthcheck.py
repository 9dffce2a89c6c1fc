"""The image's HEALTHCHECK: `python -m config.healthcheck` exits 0 when this container's /healthz answers
200.

It asks gunicorn on 127.0.0.1:$PORT with a Host the site accepts (the first of ALLOWED_HOSTS), so Django's
host check passes; /healthz is exempt from the HTTPS redirect (SECURE_REDIRECT_EXEMPT), so it needs no proxy
header.
It imports nothing from Django: it runs every 30 s and must start fast.
"""

import http.client
import os
import sys

TIMEOUT_S = 8


def health_host(allowed_hosts: str) -> str:
    """A name ALLOWED_HOSTS accepts: the first entry, a leading dot (any subdomain) or * made concrete."""
    for entry in (item.strip() for item in allowed_hosts.split(",")):
        if entry == "*":
            return "localhost"
        if entry:
            return "health" + entry if entry.startswith(".") else entry
    return "localhost"


def main() -> int:
    port = int(os.environ.get("PORT", "8000"))
    host = health_host(os.environ.get("ALLOWED_HOSTS", ""))
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
        connection.request("GET", "/healthz", headers={"Host": host})
        status = connection.getresponse().status
    except OSError as error:
        print(f"healthcheck: {error}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"healthcheck: /healthz answered {status}", file=sys.stderr)
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
