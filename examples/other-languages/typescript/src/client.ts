// A Merchant Wallet client in TypeScript for Node (no runtime dependency),
// written from docs/other-languages.md alone, and the guide's checklist
// (section 11) run against a simulator started with `mwallet-sim -clock
// manual`.
//
// Usage: node dist/client.js [BASE_URL]   (default http://127.0.0.1:8080)
//
// Exit status 0 when every step passed; otherwise it prints the failing
// step and exits 1. It never prints a secret.

import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";

const SIGNATURE_TOLERANCE = 300; // seconds, sections 5 and 9

/** One answer of any status; body is the parsed JSON (or {}). */
interface Answer {
  status: number;
  headers: Headers;
  raw: string;
  body: Record<string, any>;
}

async function httpCall(method: string, url: string, body?: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}): Promise<Answer> {
  const resp = await fetch(url, { method, headers, body: body && body.length > 0 ? body : undefined });
  const raw = await resp.text();
  return { status: resp.status, headers: resp.headers, raw, body: raw ? JSON.parse(raw) : {} };
}

/** x-signature of section 5: base64 HMAC-SHA-256 over the canonical string. */
export function sign(signingKey: string, method: string, target: string, timestamp: string, nonce: string, body: Uint8Array): string {
  const canonical = [method.toUpperCase(), target, timestamp, nonce, createHash("sha256").update(body).digest("hex")].join("\n");
  return createHmac("sha256", signingKey).update(canonical).digest("base64");
}

/** v1 of z-signature (section 9): base64 HMAC-SHA-256 over t + "." + body. */
export function webhookV1(secret: string, t: string, rawBody: Uint8Array): string {
  return createHmac("sha256", secret).update(new TextEncoder().encode(t + ".")).update(rawBody).digest("base64");
}

/** Verifies a z-signature header over the raw body at now (Unix seconds); throws saying why not. */
export function verifyWebhook(secret: string, header: string, rawBody: Uint8Array, now: number): void {
  let t: string | undefined;
  const v1s: string[] = [];
  for (const part of header.split(",")) {
    const i = part.indexOf("=");
    const key = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (key === "t") t = value;
    else if (key === "v1") v1s.push(value);
  }
  if (t === undefined || !/^[0-9]+$/.test(t) || v1s.length === 0) throw new Error("malformed z-signature");
  const want = new TextEncoder().encode(webhookV1(secret, t, rawBody));
  const ok = v1s.some((v) => {
    const got = new TextEncoder().encode(v);
    return got.length === want.length && timingSafeEqual(got, want);
  });
  if (!ok) throw new Error("z-signature does not match the body");
  if (Math.abs(now - Number(t)) > SIGNATURE_TOLERANCE) throw new Error("z-signature timestamp outside the tolerance");
}

interface CallOptions {
  member?: string;
  idempotencyKey?: string;
  timestamp?: number; // overrides the clock (tests only)
}

/**
 * The business API: token exchange and renewal (section 3), member context
 * (4), signed writes (5) on a given clock (6), idempotency keys (7). now()
 * answers Unix seconds.
 */
export class Client {
  #token = "";
  #expires = 0;

  constructor(
    readonly base: string,
    private readonly clientId: string,
    private readonly apiKey: string,
    private readonly signingKey: string,
    readonly now: () => Promise<number>,
  ) {}

  toJSON() {
    return { base: this.base, clientId: this.clientId }; // no secrets
  }

  /** A cached token, exchanged again a minute before expired_at. */
  async token(): Promise<string> {
    if (this.#token === "" || (await this.now()) >= this.#expires - 60) {
      const r = await httpCall("POST", this.base + "/v1/connect/token", undefined, { "x-client-id": this.clientId, "x-api-key": this.apiKey });
      if (r.status !== 200) throw new Error(`token exchange: ${r.status} ${r.body.code} (request ${r.headers.get("x-request-id")})`);
      this.#token = r.body.auth_token;
      this.#expires = Number(r.body.expired_at);
    }
    return this.#token;
  }

  /** Sends one request; a write is signed over the exact bytes sent. */
  async call(method: string, target: string, payload?: unknown, opts: CallOptions = {}): Promise<Answer> {
    const body = new TextEncoder().encode(payload === undefined ? "" : JSON.stringify(payload));
    const headers: Record<string, string> = { "x-auth-token": "Bearer " + (await this.token()) };
    if (body.length > 0) headers["content-type"] = "application/json";
    if (opts.member !== undefined) headers["x-on-behalf-of"] = opts.member;
    if (opts.idempotencyKey !== undefined) headers["x-idempotency-key"] = opts.idempotencyKey;
    if (method !== "GET" && method !== "HEAD") {
      const ts = String(opts.timestamp ?? (await this.now()));
      const nonce = randomUUID();
      headers["x-timestamp"] = ts;
      headers["x-nonce"] = nonce;
      headers["x-signature"] = sign(this.signingKey, method, target, ts, nonce, body);
    }
    return httpCall(method, this.base + target, body, headers);
  }
}

async function readAll(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of req) {
    chunks.push(c);
    n += c.length;
  }
  const out = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** A local webhook endpoint: verifies each delivery and keeps the events. */
async function startReceiver(secret: string, now: () => Promise<number>) {
  const events: Record<string, any>[] = [];
  const rejected: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const raw = await readAll(req);
    try {
      verifyWebhook(secret, String(req.headers["z-signature"] ?? ""), raw, await now());
    } catch (e) {
      rejected.push(String(e));
      res.writeHead(400).end();
      return;
    }
    events.push(JSON.parse(new TextDecoder().decode(raw)));
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr !== null ? addr.port : 0;
  return { events, rejected, server, url: `http://127.0.0.1:${port}/hooks` };
}

class StepFailed extends Error {}

function check(step: string, cond: boolean, detail: unknown = ""): void {
  if (!cond) throw new StepFailed(`FAIL ${step}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  console.log(`ok   ${step}`);
}

function throws(f: () => void): boolean {
  try {
    f();
    return false;
  } catch {
    return true;
  }
}

async function main(): Promise<void> {
  const base = (process.argv[2] ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
  const control = async (method: string, path: string, payload?: unknown) => {
    const r = await httpCall(method, base + path, payload === undefined ? undefined : new TextEncoder().encode(JSON.stringify(payload)), { "content-type": "application/json" });
    if (Math.floor(r.status / 100) !== 2) throw new Error(`${method} ${path}: ${r.status} ${r.raw.slice(0, 200)}`);
    return r.body;
  };
  // Section 6: under -clock manual, every timestamp comes from the simulator.
  const simNow = async () => Number((await control("GET", "/_sim/clock")).unix);
  const enc = (s: string) => new TextEncoder().encode(s);
  const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

  // 1. Credentials and the test vectors.
  const creds = await control("GET", "/_sim/credentials");
  check("signing test vector",
    sign("sim_signing_key_fedcba9876543210", "POST", "/v1/deposits", "1767225600", "6f1c1b1e-3c9f-4a55-9d0e-2f6b8e7d1a42",
      enc('{"asset":"USDT","amount":"2.5","reference":"guide-1"}')) === "PGjBTGUYDsM2IQQzCOuDIfuAVeRfhPtgjRYBwDhI/oA=");
  check("webhook test vector",
    webhookV1("sim_whsec_00112233445566778899", "1767225600", enc('{"event_id":"evt_1","event_type":"deposit.credited"}')) ===
      "wAGGv8tvAorltfAfE5cd1D/2YtkQ6Np2bvtJhmarnm4=");

  // 2. A local receiver, registered as a webhook endpoint.
  const receiver = await startReceiver(creds.webhook_secret, simNow);
  try {
    await control("POST", "/_sim/webhooks/endpoints", { url: receiver.url });
    const client = new Client(base, creds.client_id, creds.api_key, creds.signing_key, simNow);

    // 3. Token.
    check("token exchange", (await client.token()).startsWith("tok_"));

    const deposit = { asset: "USDT", amount: "2.5", reference: "ts-" + randomUUID().slice(0, 12) };

    // 4. Member context.
    let r = await client.call("POST", "/v1/deposits", deposit, { idempotencyKey: randomUUID() });
    check("no x-on-behalf-of: 400 member_context_required", r.status === 400 && r.body.code === "member_context_required", r.raw);

    // 5. Signed with the wall clock: refused, and the journal says why.
    const wall = Math.floor(Date.now() / 1000);
    r = await client.call("POST", "/v1/deposits", deposit, { member: "member-1", idempotencyKey: randomUUID(), timestamp: wall });
    if (Math.abs(wall - (await simNow())) > SIGNATURE_TOLERANCE) {
      check("wall clock: 401 timestamp_out_of_range", r.status === 401 && r.body.code === "timestamp_out_of_range", r.raw);
      const rows = (await control("GET", "/_sim/requests?limit=1")).data;
      const row = rows[rows.length - 1];
      const sig = row.signature ?? {};
      check("the journal explains the refused signature",
        row.request_id === r.headers.get("x-request-id") && sig.skew_seconds === wall - sig.clock_unix &&
          sig.body_sha256 === sha256(enc(JSON.stringify(deposit))), row);
    } else {
      console.log("skip wall clock step: the simulator clock follows the wall clock");
    }

    // 6. A signed write.
    const key = randomUUID();
    const first = await client.call("POST", "/v1/deposits", deposit, { member: "member-1", idempotencyKey: key });
    check("signed deposit: 201", first.status === 201 && first.body.status === "credited", first.raw);

    // 7. The retry: same key and bytes, new nonce and signature: a replay.
    const again = await client.call("POST", "/v1/deposits", deposit, { member: "member-1", idempotencyKey: key });
    check("retry with the same key: the stored answer, X-Idempotent-Replay: true",
      again.status === 201 && again.raw === first.raw && again.headers.get("x-idempotent-replay") === "true", again.raw);

    // 8. The same key with another body.
    r = await client.call("POST", "/v1/deposits", { ...deposit, amount: "3" }, { member: "member-1", idempotencyKey: key });
    check("same key, other body: 409 idempotency_key_reused", r.status === 409 && r.body.code === "idempotency_key_reused", r.raw);

    // 9. The webhook, verified; a tampered body is not.
    const flushed = await control("POST", "/_sim/webhooks/flush");
    const credited = receiver.events.filter((e) => e.event_type === "deposit.credited");
    check("deposit.credited delivered and verified",
      flushed.succeeded >= 1 && credited.length === 1 && receiver.rejected.length === 0 && credited[0].data.external_member_id === "member-1",
      { flushed, events: receiver.events, rejected: receiver.rejected });
    const raw = enc(JSON.stringify(credited[0]));
    const t = String(await simNow());
    const header = `t=${t},v1=${webhookV1(creds.webhook_secret, t, raw)}`;
    const now = await simNow();
    check("a re-signed copy verifies", !throws(() => verifyWebhook(creds.webhook_secret, header, raw, now)));
    check("a tampered body is refused",
      throws(() => verifyWebhook(creds.webhook_secret, header, enc(new TextDecoder().decode(raw).replace("member-1", "member-2")), now)));
    check("a stale webhook timestamp is refused", throws(() => verifyWebhook(creds.webhook_secret, header, raw, now + 301)));
    console.log("typescript client: all steps passed");
  } finally {
    receiver.server.closeAllConnections();
    receiver.server.close();
  }
}

main().catch((e) => {
  console.log(e instanceof StepFailed ? e.message : `FAIL: ${e}`);
  process.exitCode = 1;
});
