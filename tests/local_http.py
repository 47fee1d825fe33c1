"""A local HTTP(S) server for the tests that need one to talk to (a Maven mirror, a Solr node):
served on a thread, on a free loopback port, stopped at the end of the block."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def serving(server: http.server.HTTPServer) -> Iterator[int]:
    """Serves ``server`` on a thread until the block ends; gives its port."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
