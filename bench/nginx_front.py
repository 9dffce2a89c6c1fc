"""Debian's nginx with the project's own configs (docker/nginx/nginx.conf around
docker/nginx/sevenbox.conf.template) in front of gunicorn instances on loopback, under a scratch prefix: what
the nginx tests, bench/idle_connections.py and bench/load.py's scale-out run share. Also the gunicorn
instance they put behind it."""

import http.client
import os
import re
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NGINX = Path(os.environ.get("NGINX", "/usr/sbin/nginx"))
SITE_TEMPLATE = REPO / "docker" / "nginx" / "sevenbox.conf.template"
MAIN_CONFIG = REPO / "docker" / "nginx" / "nginx.conf"
TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request_seconds(port: int, path: str = "/ping") -> float:
    """How long one real request takes on a fresh connection (the answer must be /ping's "ok")."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers={"Host": "127.0.0.1"})
    response = connection.getresponse()
    if response.status != 200 or response.read() != b"ok":
        raise AssertionError(f"GET {path}: {response.status}")
    connection.close()
    return time.perf_counter() - started


def site_config(*, port: int, upstream_ports: list[int], trusted_proxy: str = "127.0.0.1/32") -> str:
    """The template rendered as the nginx image's envsubst would: only its own variables are replaced."""
    servers = " ".join(f"server 127.0.0.1:{upstream};" for upstream in upstream_ports)
    values = {
        "SEVENBOX_WEB_SERVERS": servers,
        "NGINX_PORT": f"127.0.0.1:{port}",
        "SEVENBOX_TRUSTED_PROXY": trusted_proxy,
    }
    return string.Template(SITE_TEMPLATE.read_text()).safe_substitute(values)


def main_config(prefix: Path) -> str:
    """docker/nginx/nginx.conf with its system paths moved under `prefix` (pid, logs, temp files, the site):
    its worker and connection settings are the ones tested."""
    user = "user nobody nogroup;" if os.geteuid() == 0 else ""
    temp = "\n".join(f"    {name}_temp_path {prefix / name};" for name in TEMP_DIRS)
    swaps = {
        r"^user\s.*;$": user,
        r"^error_log\s.*;$": f"error_log {prefix / 'error.log'} warn;",
        r"^pid\s.*;$": f"pid {prefix / 'nginx.pid'};",
        r"^\s*access_log\s.*;$": "    access_log off;",
        r"^\s*include\s+/etc/nginx/conf\.d/\*\.conf;$": f"{temp}\n    include {prefix / 'sevenbox.conf'};",
    }
    text = MAIN_CONFIG.read_text()
    for pattern, replacement in swaps.items():
        text, count = re.subn(pattern, lambda _match, new=replacement: new, text, flags=re.M)
        if count != 1:
            raise ValueError(f"{MAIN_CONFIG}: expected one line matching {pattern!r}, found {count}")
    return text


@contextmanager
def nginx_in_front(*, port: int, upstream_ports: list[int], trusted_proxy: str = "127.0.0.1/32"):
    """Run nginx on `port` balancing `upstream_ports` until the block ends; yields its prefix folder.
    `trusted_proxy` is the TLS proxy whose X-Forwarded-Proto nginx passes on."""
    if not NGINX.exists():
        raise FileNotFoundError(f"{NGINX} is missing: apt-get install nginx (.ci/run does)")
    prefix = Path(tempfile.mkdtemp(prefix="sevenbox-nginx-"))
    prefix.chmod(0o755)  # the workers run as nobody when the master is root
    for name in TEMP_DIRS:
        (prefix / name).mkdir(mode=0o777)
        (prefix / name).chmod(0o777)
    site = site_config(port=port, upstream_ports=upstream_ports, trusted_proxy=trusted_proxy)
    (prefix / "sevenbox.conf").write_text(site)
    (prefix / "nginx.conf").write_text(main_config(prefix))
    command = [
        str(NGINX),
        "-p",
        str(prefix),
        "-e",
        str(prefix / "error.log"),
        "-c",
        str(prefix / "nginx.conf"),
    ]
    subprocess.run([*command, "-t", "-q"], check=True)
    process = subprocess.Popen([*command, "-g", "daemon off;"])
    try:
        yield prefix
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(prefix, ignore_errors=True)


def gunicorn_start(
    *, port: int, env: dict[str, str], log: Path, access_log: Path | None = None
) -> subprocess.Popen:
    """One gunicorn instance as the container runs it (config/gunicorn.py), on loopback."""
    command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application",
               "--bind", f"127.0.0.1:{port}", "--log-level", "warning"]  # fmt: skip
    if access_log is not None:
        command += ["--access-logfile", str(access_log)]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def production_env(**extra: str) -> dict[str, str]:
    """Production settings for loopback runs: DEBUG off, a throwaway key, plain HTTP."""
    return {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "loopback-only-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        **extra,
    }
