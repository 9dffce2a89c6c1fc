from ipaddress import ip_network

from django.test import RequestFactory

from config.client_address import client_address


def request_from(remote: str, forwarded: str | None = None):
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR=remote, **headers)


def test_without_trusted_proxies_the_address_is_the_peer_whatever_the_header_says(settings):
    settings.TRUSTED_PROXIES = []
    assert client_address(request_from("203.0.113.5", "198.51.100.7")) == "203.0.113.5"


def test_behind_trusted_proxies_it_is_the_last_hop_they_did_not_add(settings):
    settings.TRUSTED_PROXIES = [ip_network("172.30.57.0/24"), ip_network("10.0.0.9")]
    # a forged entry, the real client as the TLS proxy (10.0.0.9) saw it, then that proxy as nginx saw it
    request = request_from("172.30.57.3", "1.2.3.4, 198.51.100.7, 10.0.0.9")
    assert client_address(request) == "198.51.100.7"


def test_a_trusted_proxy_with_no_header_is_the_client(settings):
    settings.TRUSTED_PROXIES = [ip_network("172.30.57.0/24")]
    assert client_address(request_from("172.30.57.3")) == "172.30.57.3"
