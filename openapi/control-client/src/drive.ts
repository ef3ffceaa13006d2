// Drives every control write of the simulator's control API document
// (openapi/mwallet-sim.yaml) through a client generated from it
// (openapi-typescript for the types, openapi-fetch for the calls), against
// a fresh mwallet-sim: the document and the simulator's guard must agree.
//
// The write operations are read from the document itself, so one it gains
// without a plan here fails the run; an operation whose last path
// parameter enumerates actions is driven once per action. Each call is
// sent as the generated client sends it: a bodyless write without
// Content-Type. None may be refused by the guard (401, or 400 naming
// Content-Type or another site), and each answer's status must be one the
// document lists for the operation.
//
//   node dist/drive.js BASE_URL ../mwallet-sim.yaml [CONTROL_TOKEN]

import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import { parse } from "yaml";
import type { paths } from "./control.js";

const [base, docPath, token] = process.argv.slice(2);
if (!base || !docPath) {
  console.error("usage: node dist/drive.js BASE_URL PATH_TO_mwallet-sim.yaml [CONTROL_TOKEN]");
  process.exit(2);
}
const client = createClient<paths>({
  baseUrl: base,
  headers: token ? { "X-Sim-Control-Token": token } : {},
});

type Answer = { response: Response; error?: unknown };

// sent is what the client put on the wire for the last request.
let sent = { contentType: "" as string | null, body: false };
client.use({
  onRequest({ request }) {
    sent = { contentType: request.headers.get("content-type"), body: request.body !== null };
    return request;
  },
});

// The objects the plans name: made first, through the control API.
const fx = {
  member: "ts-member-1",
  key: "ts_client_1",
  endpoint: "",
  delivery: "",
  unknown: "00000000-0000-4000-8000-00000000beef",
};

async function setUp(): Promise<void> {
  const m = await client.POST("/_sim/members", {
    body: { external_member_id: fx.member, kyc_level: 1, balances: { USDT: "100" } },
  });
  const k = await client.POST("/_sim/keys", { body: { client_id: fx.key } });
  const ep = await client.POST("/_sim/webhooks/endpoints", { body: { url: "http://127.0.0.1:9/ts-hooks" } });
  const ev = await client.POST("/_sim/webhooks/events", {
    body: { event_type: "member.created", object: "member", id: "ts-1", external_member_id: fx.member, status: "created", status_version: 0 },
  });
  const dl = await client.GET("/_sim/webhooks/deliveries");
  if (!m.response.ok || !k.response.ok || !ep.response.ok || !ev.response.ok || !dl.data) {
    throw new Error(`set-up: ${m.response.status} ${k.response.status} ${ep.response.status} ${ev.response.status} ${dl.response.status}`);
  }
  fx.endpoint = ep.data!.id;
  fx.delivery = dl.data.data[0].id;
}

// plans make each write of the document: by operationId, with the action
// for an operation that enumerates them. Each is a typed call of the
// generated client.
const plans: Record<string, (action: string) => Promise<Answer>> = {
  advanceClock: () => client.POST("/_sim/clock", { body: { advance_seconds: 1 } }),
  createSimMember: () => client.POST("/_sim/members", { body: { external_member_id: "ts-member-2", kyc_level: 2 } }),
  setSimMemberStatus: () =>
    client.POST("/_sim/members/{id}/status", { params: { path: { id: fx.member } }, body: { status: "active" } }),
  setSimMerchant: () => client.POST("/_sim/merchant", { body: { fee_rate_bps: 25 } }),
  topUpSimPrepaid: () => client.POST("/_sim/merchant/prepaid/topup", { body: { asset: "USDT", amount: "10" } }),
  createSimKey: () => client.POST("/_sim/keys", {}),
  setSimKey: () => client.POST("/_sim/keys/{client_id}", { params: { path: { client_id: fx.key } }, body: { disabled: false } }),
  addFault: () => client.POST("/_sim/faults", { body: { method: "GET", path: "/v1/assets", kind: "error", code: "api_error" } }),
  clearFaults: () => client.DELETE("/_sim/faults"),
  resetRequests: () => client.DELETE("/_sim/requests"),
  setOutcomeMode: () => client.POST("/_sim/outcomes", { body: { collection: "qrpay/orders", mode: "manual" } }),
  completeStepUp: () => client.POST("/_sim/step-up/{challenge_id}/complete", { params: { path: { challenge_id: fx.unknown } } }),
  qrOrderAction: (action) =>
    client.POST("/_sim/qrpay/orders/{id}/{action}", { params: { path: { id: "qrp_" + fx.unknown, action: action as never } } }),
  cardApplicationAction: (action) =>
    client.POST("/_sim/cards/applications/{id}/{action}", { params: { path: { id: "cap_" + fx.unknown, action: action as never } } }),
  cardTopUpAction: (action) =>
    client.POST("/_sim/cards/topups/{id}/{action}", { params: { path: { id: "ctp_" + fx.unknown, action: action as never } } }),
  cardAction: (action) =>
    client.POST("/_sim/cards/{id}/{action}", { params: { path: { id: "crd_" + fx.unknown, action: action as never } } }),
  remittanceAction: (action) =>
    client.POST("/_sim/remittances/{id}/{action}", { params: { path: { id: "rmt_" + fx.unknown, action: action as never } } }),
  kycAction: (action) =>
    client.POST("/_sim/kyc/{id}/{action}", {
      params: { path: { id: fx.member, action: action as never } },
      body: action === "approve" ? { level: 1 } : undefined,
    }),
  completeKYCSession: () => client.POST("/_sim/kyc/sessions/{id}/complete", { params: { path: { id: "kyc_" + fx.unknown } } }),
  compensateQuickBinding: () =>
    client.POST("/_sim/kyc/quick/{id}/compensate", { params: { path: { id: "qkb_" + fx.unknown } }, body: { compensation_source: "admin" } }),
  addWebhookEndpoint: () => client.POST("/_sim/webhooks/endpoints", { body: { url: "http://127.0.0.1:9/ts-other" } }),
  toggleWebhookEndpoint: (action) =>
    client.POST("/_sim/webhooks/endpoints/{id}/{action}", { params: { path: { id: fx.endpoint, action: action as never } } }),
  operatorRedeliver: () => client.POST("/_sim/webhooks/deliveries/{id}/redeliver", { params: { path: { id: fx.delivery } } }),
  flushWebhooks: () => client.POST("/_sim/webhooks/flush"),
  emitEvent: () =>
    client.POST("/_sim/webhooks/events", {
      body: { event_type: "earn.order.settled", object: "earn_order", id: "ts-2", external_member_id: fx.member, status: "settled", status_version: 1 },
    }),
  setWebhookAutoDelivery: () => client.POST("/_sim/webhooks/auto", { body: { enabled: false } }),
  timeoutNextCardTopUps: () => client.POST("/_sim/cards/topups/upstream_timeout", { body: { count: 0 } }),
  setSimCardLimit: () => client.POST("/_sim/cards/limits", { body: { form_factor: "virtual", limit: 5 } }),
  setSimCardBINAuthorizations: () => client.POST("/_sim/cards/bin_authorizations", { body: { bins: [] } }),
  setSimCardProductEnabled: () =>
    client.POST("/_sim/cards/products/{id}/enabled", { params: { path: { id: "cpd_virtual_std" } }, body: { enabled: true } }),
  setSimCardPenalty: () =>
    client.POST("/_sim/members/{id}/card_penalty", { params: { path: { id: fx.member } }, body: { outstanding: false } }),
  setSimKYCCountry: () => client.POST("/_sim/members/{id}/kyc_country", { params: { path: { id: fx.member } }, body: { country: "SG" } }),
  addSimShippingAddress: () =>
    client.POST("/_sim/members/{id}/shipping_addresses", { params: { path: { id: fx.member } }, body: { country: "HK" } }),
  setSimFundsProtection: () =>
    client.POST("/_sim/members/{id}/funds_protection", { params: { path: { id: fx.member } }, body: { enabled: false } }),
  setSimQuickKYC: () => client.POST("/_sim/kyc/quick", { body: { enabled: true, pool: 3 } }),
  withdrawSimPrepaid: () => client.POST("/_sim/merchant/prepaid/withdraw", { body: { asset: "USDT", amount: "1" } }),
  setSimPOBOSubaccount: () => client.POST("/_sim/merchant/pobo_subaccount", { body: { active: true } }),
  setSimWriteQuota: () => client.POST("/_sim/merchant/write_quota", { body: { per_minute: 0 } }),
  setSimQRLine: () => client.POST("/_sim/qrpay/line", { body: { enabled: true } }),
  setSimQRScenarios: () => client.POST("/_sim/qrpay/scenarios", { body: { code_value: "000201-ts", scenarios: ["timeout"] } }),
  setSimQRFiatRate: () => client.POST("/_sim/qrpay/fiat_rates", { body: { currency: "THB", usd_per_unit: "0.028" } }),
  signSimRequest: () =>
    client.POST("/_sim/keys/{client_id}/sign", { params: { path: { client_id: fx.key } }, body: { method: "POST", path: "/v1/deposits" } }),
  startSimRequestInProgress: () =>
    client.POST("/_sim/requests/in_progress", {
      body: { method: "POST", path: "/v1/deposits", idempotency_key: "00000000-0000-4000-8000-0000000000a1" },
    }),
  // Last: it removes the endpoint the plans above use.
  removeWebhookEndpoint: () => client.DELETE("/_sim/webhooks/endpoints/{id}", { params: { path: { id: fx.endpoint } } }),
};

type Op = { method: string; path: string; id: string; actions: string[]; bodyless: boolean; statuses: Set<string> };

// writes reads the write operations of the document.
function writes(): Op[] {
  const doc = parse(readFileSync(docPath, "utf8"));
  const out: Op[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const method of ["post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const action = params.find((p: any) => p.in === "path" && p.name === "action");
      out.push({
        method: method.toUpperCase(),
        path,
        id: op.operationId,
        actions: action?.schema?.enum ?? [""],
        bodyless: !op.requestBody || op.requestBody.$ref === "#/components/requestBodies/NoBody",
        statuses: new Set(Object.keys(op.responses ?? {})),
      });
    }
  }
  return out;
}

// guardRefusal reports an answer of the control guard.
async function guardRefusal(a: Answer): Promise<string> {
  if (a.response.status === 401) return "401 (the control token)";
  const e = a.error as { code?: string; message?: string } | undefined;
  if (a.response.status === 400 && e?.message && /Content-Type|another site|does not answer for Host/.test(e.message)) {
    return `400 ${e.message}`;
  }
  return "";
}

async function main(): Promise<void> {
  await setUp();
  const ops = writes();
  const order = Object.keys(plans);
  ops.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  let calls = 0;
  let bodyless = 0;
  const failures: string[] = [];
  for (const op of ops) {
    const plan = plans[op.id];
    if (!plan) {
      failures.push(`${op.method} ${op.path} (${op.id}): the document has this write, the driver no plan for it`);
      continue;
    }
    for (const action of op.actions) {
      const a = await plan(action);
      calls++;
      const what = `${op.method} ${op.path}${action ? ` (${action})` : ""}`;
      if (!sent.body) {
        bodyless++;
        if (sent.contentType !== null) failures.push(`${what}: the generated client sent Content-Type ${sent.contentType} without a body`);
      }
      if (op.bodyless && sent.body) failures.push(`${what}: the document declares no body, the client sent one`);
      const refused = await guardRefusal(a);
      const status = String(a.response.status);
      const documented = op.statuses.has(status) || op.statuses.has(status[0] + "XX");
      console.log(`${status.padEnd(4)} ${what}${sent.body ? "" : "  [no body, no Content-Type]"}`);
      if (refused) failures.push(`${what}: refused by the guard: ${refused}`);
      else if (!documented) failures.push(`${what}: answered ${status}, which the document does not list (${[...op.statuses].join(", ")})`);
    }
  }
  console.log(`${calls} calls of the ${ops.length} write operations of the document, ${bodyless} of them without a body and without Content-Type`);
  if (failures.length > 0) {
    for (const f of failures) console.error("FAIL " + f);
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
