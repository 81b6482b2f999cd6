"""The client address a rate limit counts. Pure: no aiohttp.

The peer of the connection, unless it is one of the configured trusted proxies: then the address that
proxy says it forwarded for (X-Forwarded-For), read from the right, past any further trusted proxies.
X-Forwarded-For from any other peer is the client's own say and is ignored. An IPv6 client counts by
its /64, the network one subscriber gets, so that it cannot take a new address per request.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def client_address(peer: str | None, forwarded_for: Iterable[str], trusted: Sequence[Network]) -> str:
    """The address to count: ``peer`` (the connection's), or when that is a trusted proxy the nearest
    address in ``forwarded_for`` (the X-Forwarded-For headers, in order) that is not one. A hop that is
    not an address ends the walk: the proxy that passed it on is counted instead."""
    address = _parse(peer or "")
    if address is None:
        return peer or "unknown"
    if trusted and _within(address, trusted):
        hops = [hop for header in forwarded_for for hop in header.split(",")]
        for hop in reversed(hops):
            forwarded = _parse(hop)
            if forwarded is None:
                break
            address = forwarded
            if not _within(address, trusted):
                break
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _within(address: Address, networks: Sequence[Network]) -> bool:
    return any(address.version == n.version and address in n for n in networks)


def _parse(text: str) -> Address | None:
    """An address as a peer or a proxy writes it: bare, ``[v6]`` or ``[v6]:port``, ``v4:port``; an
    IPv4 address mapped into IPv6 is the IPv4 address."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
