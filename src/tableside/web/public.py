"""Links the group's phones can open (issue 25, W-80 … W-82, docs/web.md).

A link or QR code the Host shares is built on the public address: ``TABLESIDE_PUBLIC_URL``
(``tableside serve --public-url``, or the LAN address ``serve`` found when it listens on every
address) when set, else the address the Host's browser used (W-80). A link on a loopback
address (127.0.0.1, localhost, ::1) reaches only this computer: the page that shows it says so
and how to serve the table to the group (W-81). The LAN address is read from this computer's
own name, sending nothing (W-82).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from urllib.parse import urlsplit

from starlette.requests import Request

PUBLIC_URL_ENV = "TABLESIDE_PUBLIC_URL"
LOOPBACK_WARNING = (
    "This link points to this computer only ({host}): a phone or another computer cannot open "
    "it. Serve the table to the group with `tableside serve --host 0.0.0.0` (the links then use "
    "this computer's address on the local network) or `--public-url http://ADDRESS:PORT`."
)


def public_base(request: Request) -> str:
    """The base of shared links: the public URL when set, else the address the request used."""
    configured = os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    return configured or str(request.base_url).rstrip("/")


def loopback_host(link: str) -> str | None:
    """The link's host when it is a loopback address (only this computer), else None."""
    host = urlsplit(link).hostname or ""
    if host == "localhost":
        return host
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        return None


def reach_warning(link: str) -> str:
    """The warning for a link phones cannot open (W-81), or the empty string."""
    host = loopback_host(link)
    return "" if host is None else LOOPBACK_WARNING.format(host=host)


def lan_address() -> str | None:
    """This computer's IPv4 address on the local network, from its own name (W-82), or None."""
    try:
        _name, _aliases, found = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        return None
    for address in found:
        parsed = ipaddress.ip_address(address)
        if not parsed.is_loopback and not parsed.is_link_local and not parsed.is_unspecified:
            return address
    return None


def checked_public_url(url: str) -> str:
    """A ``--public-url`` value: an http(s) URL with a host, without a trailing slash."""
    from tableside.errors import DataError

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DataError(f"--public-url must be an http:// or https:// address, got {url!r}.")
    return url.rstrip("/")
