"""A stand-in for JupyterHub's API in tests of the classroom service (``tests/test_classroom.py``).

``python tests/classroom_fakehub.py PORT TOKENS.json`` answers ``GET /hub/api/user`` as the
hub does for a token (``Authorization: token ...``): the token's user model from the JSON
file (``{token: {"name", "groups", "scopes"}}``), or 403. It counts the lookups it
served (``GET /lookups``) so a test can see the service's cache and rate limit at work.
``... CERT KEY CA`` serves HTTPS and asks for a client certificate signed by CA, as the
hub's API does with internal_ssl.
"""

from __future__ import annotations

import json
import ssl
import sys

from tornado import ioloop, web

SEEN = {"lookups": 0}


def main() -> None:
    port, path = int(sys.argv[1]), sys.argv[2]
    with open(path, encoding="utf-8") as fh:
        tokens = json.load(fh)

    class User(web.RequestHandler):
        def get(self):
            SEEN["lookups"] += 1
            token = self.request.headers.get("Authorization", "").partition(" ")[2]
            model = tokens.get(token)
            if model is None:
                self.set_status(403)
                self.finish("{}")
                return
            self.finish(json.dumps({"kind": "user", "admin": False, **model}))

    class Lookups(web.RequestHandler):
        def get(self):
            self.finish(json.dumps(SEEN))

    tls = None
    if len(sys.argv) > 5:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=sys.argv[5])
        tls.load_cert_chain(sys.argv[3], sys.argv[4])
        tls.verify_mode = ssl.CERT_REQUIRED
    app = web.Application([(r"/hub/api/user", User), (r"/lookups", Lookups)])
    app.listen(port, "127.0.0.1", ssl_options=tls)
    ioloop.IOLoop.current().start()


if __name__ == "__main__":
    main()
