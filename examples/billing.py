"""The `billing` service of docker-compose.yml (and scripts/docker-check): a
stand-in handler that prints one JSON line per delivery on stdout and
answers 200. It does not verify the Standard Webhooks signature: a real
handler does, with BILLING_SIGNING_SECRET."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        print("DELIVERED " + json.dumps({
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
        }), flush=True)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()


HTTPServer(("0.0.0.0", 9000), Handler).serve_forever()
