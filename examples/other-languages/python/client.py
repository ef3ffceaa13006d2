#!/usr/bin/env python3
"""A Merchant Wallet client in Python (standard library only), written from
docs/other-languages.md alone, and the guide's checklist (section 11) run
against a simulator started with `mwallet-sim -clock manual`.

Usage: python3 client.py [BASE_URL]   (default http://127.0.0.1:8080)

Exit status 0 when every step passed; otherwise it prints the failing step
and exits 1. It never prints a secret.
"""

import base64
import hashlib
import hmac
import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

SIGNATURE_TOLERANCE = 300  # seconds, sections 5 and 9


class APIError(Exception):
    """An error answer of the service: the envelope of section 8."""

    def __init__(self, status, body, headers):
        self.status = status
        self.code = body.get("code", "")
        self.message = body.get("message", "")
        self.request_id = headers.get("X-Request-Id", "")
        super().__init__(f"{status} {self.code}: {self.message} (request {self.request_id})")


class Response:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers
        self.raw = raw
        self.body = json.loads(raw) if raw else {}


def http_call(method, url, body=None, headers=None):
    """One HTTP exchange; answers every status as a Response."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return Response(resp.status, resp.headers, resp.read())
    except urllib.error.HTTPError as e:
        return Response(e.code, e.headers, e.read())


def sign(signing_key, method, target, timestamp, nonce, body):
    """x-signature of section 5: base64 HMAC-SHA-256 over the canonical string."""
    canonical = "\n".join([method.upper(), target, timestamp, nonce, hashlib.sha256(body).hexdigest()])
    mac = hmac.new(signing_key.encode(), canonical.encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()


def webhook_v1(secret, t, raw_body):
    """v1 of z-signature (section 9): base64 HMAC-SHA-256 over t + "." + body."""
    mac = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).digest()
    return base64.b64encode(mac).decode()


def verify_webhook(secret, header, raw_body, now):
    """Verifies a z-signature header over the raw body at now (Unix seconds).
    Raises ValueError saying why not."""
    t, v1s = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            t = value
        elif key == "v1":
            v1s.append(value)
    if t is None or not t.isdigit() or not v1s:
        raise ValueError("malformed z-signature")
    want = webhook_v1(secret, t, raw_body)
    if not any(hmac.compare_digest(want, v) for v in v1s):
        raise ValueError("z-signature does not match the body")
    if abs(now - int(t)) > SIGNATURE_TOLERANCE:
        raise ValueError("z-signature timestamp outside the tolerance")


class Client:
    """The business API: token exchange and renewal (section 3), member
    context (4), signed writes (5) on a given clock (6), idempotency keys (7)
    and errors (8). now() returns Unix seconds."""

    def __init__(self, base_url, client_id, api_key, signing_key, now):
        self.base = base_url.rstrip("/")
        self._client_id = client_id
        self._api_key = api_key
        self._signing_key = signing_key
        self.now = now
        self._token = None
        self._expires = 0

    def __repr__(self):
        return f"Client({self.base!r}, client_id={self._client_id!r})"  # no secrets

    def token(self):
        """A cached token, exchanged again a minute before expired_at."""
        if self._token is None or self.now() >= self._expires - 60:
            r = http_call("POST", self.base + "/v1/connect/token",
                          headers={"x-client-id": self._client_id, "x-api-key": self._api_key})
            if r.status != 200:
                raise APIError(r.status, r.body, r.headers)
            self._token, self._expires = r.body["auth_token"], int(r.body["expired_at"])
        return self._token

    def call(self, method, target, payload=None, member=None, idempotency_key=None,
             timestamp=None, raw=None):
        """Sends one request and returns the Response (any status).
        A write is signed; payload is serialised once and those bytes are
        hashed and sent. timestamp overrides the clock (tests only)."""
        body = raw if raw is not None else (b"" if payload is None else
                                            json.dumps(payload, separators=(",", ":")).encode())
        headers = {"x-auth-token": "Bearer " + self.token()}
        if body:
            headers["content-type"] = "application/json"
        if member is not None:
            headers["x-on-behalf-of"] = member
        if idempotency_key is not None:
            headers["x-idempotency-key"] = idempotency_key
        if method.upper() not in ("GET", "HEAD"):
            ts = str(timestamp if timestamp is not None else self.now())
            nonce = str(uuid.uuid4())
            headers["x-timestamp"] = ts
            headers["x-nonce"] = nonce
            headers["x-signature"] = sign(self._signing_key, method, target, ts, nonce, body)
        return http_call(method, self.base + target, body or None, headers)


class Receiver:
    """A local webhook endpoint: verifies each delivery and keeps the events."""

    def __init__(self, secret, now):
        self.events, self.rejected = [], []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    verify_webhook(secret, self.headers.get("z-signature", ""), raw, now())
                except ValueError as e:
                    outer.rejected.append(str(e))
                    self.send_response(400)
                    self.end_headers()
                    return
                outer.events.append(json.loads(raw))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/hooks" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def check(step, cond, detail=""):
    if not cond:
        print(f"FAIL {step}: {detail}")
        sys.exit(1)
    print(f"ok   {step}")


def main():
    base = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")

    def control(method, path, payload=None):
        body = None if payload is None else json.dumps(payload).encode()
        r = http_call(method, base + path, body, {"content-type": "application/json"})
        if r.status // 100 != 2:
            raise RuntimeError(f"{method} {path}: {r.status} {r.raw[:200]!r}")
        return r.body

    # Section 6: under -clock manual, every timestamp comes from the simulator.
    def sim_now():
        return int(control("GET", "/_sim/clock")["unix"])

    # 1. Credentials and the test vectors.
    creds = control("GET", "/_sim/credentials")
    vector_body = b'{"asset":"USDT","amount":"2.5","reference":"guide-1"}'
    check("signing test vector",
          sign("sim_signing_key_fedcba9876543210", "POST", "/v1/deposits", "1767225600",
               "6f1c1b1e-3c9f-4a55-9d0e-2f6b8e7d1a42", vector_body)
          == "PGjBTGUYDsM2IQQzCOuDIfuAVeRfhPtgjRYBwDhI/oA=")
    check("webhook test vector",
          webhook_v1("sim_whsec_00112233445566778899", "1767225600",
                     b'{"event_id":"evt_1","event_type":"deposit.credited"}')
          == "wAGGv8tvAorltfAfE5cd1D/2YtkQ6Np2bvtJhmarnm4=")

    # 2. A local receiver, registered as a webhook endpoint.
    receiver = Receiver(creds["webhook_secret"], sim_now)
    control("POST", "/_sim/webhooks/endpoints", {"url": receiver.url})

    client = Client(base, creds["client_id"], creds["api_key"], creds["signing_key"], sim_now)

    # 3. Token.
    check("token exchange", client.token().startswith("tok_"))

    run = uuid.uuid4().hex[:12]
    deposit = {"asset": "USDT", "amount": "2.5", "reference": "py-" + run}

    # 4. Member context.
    r = client.call("POST", "/v1/deposits", deposit, idempotency_key=str(uuid.uuid4()))
    check("no x-on-behalf-of: 400 member_context_required",
          r.status == 400 and r.body.get("code") == "member_context_required", r.raw)

    # 5. Signed with the wall clock: refused, and the journal says why.
    wall = int(time.time())
    r = client.call("POST", "/v1/deposits", deposit, member="member-1",
                    idempotency_key=str(uuid.uuid4()), timestamp=wall)
    if abs(wall - sim_now()) > SIGNATURE_TOLERANCE:
        check("wall clock: 401 timestamp_out_of_range",
              r.status == 401 and r.body.get("code") == "timestamp_out_of_range", r.raw)
        row = control("GET", "/_sim/requests?limit=1")["data"][-1]
        sig = row.get("signature") or {}
        check("the journal explains the refused signature",
              row.get("request_id") == r.headers.get("X-Request-Id")
              and sig.get("skew_seconds") == wall - sig.get("clock_unix", 0)
              and sig.get("body_sha256") == hashlib.sha256(json.dumps(deposit, separators=(",", ":")).encode()).hexdigest(),
              row)
    else:
        print("skip wall clock step: the simulator clock follows the wall clock")

    # 6. A signed write.
    key = str(uuid.uuid4())
    first = client.call("POST", "/v1/deposits", deposit, member="member-1", idempotency_key=key)
    check("signed deposit: 201", first.status == 201 and first.body.get("status") == "credited", first.raw)

    # 7. The retry: same key and bytes, new nonce and signature: a replay.
    again = client.call("POST", "/v1/deposits", deposit, member="member-1", idempotency_key=key)
    check("retry with the same key: the stored answer, X-Idempotent-Replay: true",
          again.status == 201 and again.raw == first.raw
          and again.headers.get("X-Idempotent-Replay") == "true", again.raw)

    # 8. The same key with another body.
    other = dict(deposit, amount="3")
    r = client.call("POST", "/v1/deposits", other, member="member-1", idempotency_key=key)
    check("same key, other body: 409 idempotency_key_reused",
          r.status == 409 and r.body.get("code") == "idempotency_key_reused", r.raw)

    # 9. The webhook, verified; a tampered body is not.
    flushed = control("POST", "/_sim/webhooks/flush")
    credited = [e for e in receiver.events if e.get("event_type") == "deposit.credited"]
    check("deposit.credited delivered and verified",
          flushed.get("succeeded", 0) >= 1 and len(credited) == 1 and not receiver.rejected
          and credited[0]["data"]["external_member_id"] == "member-1",
          (flushed, receiver.events, receiver.rejected))
    raw = json.dumps(credited[0], separators=(",", ":")).encode()
    t = str(sim_now())
    header = "t=%s,v1=%s" % (t, webhook_v1(creds["webhook_secret"], t, raw))
    verify_webhook(creds["webhook_secret"], header, raw, sim_now())
    try:
        verify_webhook(creds["webhook_secret"], header, raw.replace(b"member-1", b"member-2"), sim_now())
        check("a tampered body is refused", False)
    except ValueError:
        check("a tampered body is refused", True)
    try:
        verify_webhook(creds["webhook_secret"], header, raw, sim_now() + 301)
        check("a stale webhook timestamp is refused", False)
    except ValueError:
        check("a stale webhook timestamp is refused", True)

    receiver.server.shutdown()
    print("python client: all steps passed")


if __name__ == "__main__":
    main()
