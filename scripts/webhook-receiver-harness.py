"""The test's receiver: docs/examples/webhook_receiver.py's `verify` (the documented recipe)
behind a server that can fail on purpose. Prints "port N", then one JSON line per request.

    SECRET_FILE=path FAIL_FIRST=n python3 scripts/webhook-receiver-harness.py docs/examples
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, sys.argv[1])
import webhook_receiver as docs  # noqa: E402

fail_first = int(os.environ.get("FAIL_FIRST", "0"))
lock = threading.Lock()
count = 0


class Harness(BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(os.environ["SECRET_FILE"], "rb") as f:
            secret = f.read().strip()
        ok = docs.verify(self.headers.get("GeoSpend-Signature", ""), body, secret)
        with lock:
            count += 1
            n = count
        status = 500 if n <= fail_first else (200 if ok else 400)
        event = json.loads(body)
        line = {"n": n, "verified": ok, "status": status, "key": self.headers.get("Idempotency-Key"),
                "at": time.time(), "id": event["id"], "type": event["type"], "data": event["data"]}
        print(json.dumps(line), flush=True)
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Harness)
print("port", server.server_address[1], flush=True)
server.serve_forever()
