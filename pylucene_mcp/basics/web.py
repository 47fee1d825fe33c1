"""Downloads, as every part of the product makes them: HTTPS verified through the system's trust
store (or a CA bundle that is named), the proxy the environment names, and a message that says
which proxy was used when one fails."""

from __future__ import annotations

import os
import ssl
from typing import Any

from pylucene_mcp.basics import config, errors

#: An extra certificate authority bundle (PEM) to trust beside the system's, for a network
#: that inspects TLS with its own CA; the first of these that is set counts.
CA_BUNDLE_VARIABLES = (config.variable("ca_bundle"), "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def ssl_context() -> ssl.SSLContext:
    """How every download of the product verifies HTTPS: through the operating system's trust
    store (``truststore``: the Keychain on macOS, CryptoAPI on Windows, OpenSSL's system paths
    on Linux), where a company's TLS-inspecting proxy has its CA installed; with a CA bundle
    named by :data:`CA_BUNDLE_VARIABLES`, through Python's default certificates and that bundle.

    Raises:
        SetupError: when the named bundle cannot be read.
    """
    for variable in CA_BUNDLE_VARIABLES:
        ours = variable == config.variable("ca_bundle")
        bundle = config.from_environment("ca_bundle") if ours else os.environ.get(variable)
        if bundle:
            context = ssl.create_default_context()
            try:
                context.load_verify_locations(cafile=bundle)
            except (OSError, ssl.SSLError) as exc:
                raise errors.SetupError(
                    f"{variable}={bundle} is not a readable PEM file of certificates ({exc}); "
                    "point it at your network's CA bundle, or unset it"
                ) from exc
            return context
    import truststore

    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def open_url(url: str, timeout_s: float) -> Any:
    """``url`` opened for reading, through the proxy the environment names and with the system's
    trust store."""
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "pylucene-mcp"})
    # an opener of its own each time: the proxy variables as they are now (urlopen's shared
    # opener keeps those of its first use for the life of the process)
    handlers: list[Any] = [urllib.request.ProxyHandler()]
    if url.startswith("https://"):  # else a mirror on plain HTTP
        handlers.append(urllib.request.HTTPSHandler(context=ssl_context()))
    return urllib.request.build_opener(*handlers).open(request, timeout=timeout_s)


def proxy_used(url: str, environ: dict[str, str] | None = None) -> str:
    """`` through the proxy P (VARIABLE)`` when the environment sends ``url`` through one (the
    variables urllib reads: ``https_proxy``, ``HTTPS_PROXY`` …, unless ``no_proxy`` names the
    host), else nothing: an unreachable proxy is the commonest reason a download fails."""
    import urllib.parse

    variables = os.environ if environ is None else environ
    scheme = urllib.parse.urlsplit(url).scheme
    host = urllib.parse.urlsplit(url).hostname or ""
    for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY", "all_proxy", "ALL_PROXY"):
        value = variables.get(name)
        if value:
            bypass = variables.get("no_proxy") or variables.get("NO_PROXY") or ""
            names = [entry.strip().lstrip(".") for entry in bypass.split(",") if entry.strip()]
            if "*" in names or any(host == n or host.endswith("." + n) for n in names):
                return ""
            shown = urllib.parse.urlsplit(value)
            where = f"{shown.scheme}://{shown.hostname}" + (f":{shown.port}" if shown.port else "")
            return f" through the proxy {where} ({name})"
    return ""
