"""A GeoSpend webhook receiver (docs/NOTIFICATIONS.md): verifies GeoSpend-Signature, refuses
replays older than five minutes, and handles each event id once (deliveries are at least once).

    GEOSPEND_WEBHOOK_SECRET=whsec_... python3 webhook_receiver.py 8000
"""
import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def verify(header: str, body: bytes, secret: bytes, tolerance: int = 300) -> bool:
    """Stripe's recipe: v1 = hex HMAC-SHA256(secret, f"{t}.{body}"), compared in constant time."""
    parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
    t = next((v for k, v in parts if k == "t"), None)
    if t is None or not t.isdigit() or abs(time.time() - int(t)) > tolerance:
        return False
    expected = hmac.new(secret, t.encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, v) for k, v in parts if k == "v1")


seen = set()  # a real receiver keeps the ids it handled in its database


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        secret = os.environ["GEOSPEND_WEBHOOK_SECRET"].encode()
        if not verify(self.headers.get("GeoSpend-Signature", ""), body, secret):
            self.send_response(400)
            self.end_headers()
            return
        event = json.loads(body)
        if event["id"] not in seen:  # the Idempotency-Key header holds the same id
            seen.add(event["id"])
            print(event["type"], json.dumps(event["data"]), flush=True)
        self.send_response(200)
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8000), Receiver).serve_forever()
