/**
 * The tenant matrix, generated from the route table: the keys every keyed row refuses, and what another
 * workspace's key sees of a record it does not own (docs/testing.md). Shared by test/fuzz/tenants.test.ts
 * and the proof that the matrix can fail (test/fuzz/ring-can-fail.test.ts); its response-cache cases
 * (`cacheCases`, `crossTenantCacheProblem`) by test/fuzz/tenants-response-cache.test.ts.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import type { RouteRow } from "../../functions/routes.js";
import { RESPONSE_CACHE_BACKEND, RESPONSE_CACHE_HEADER } from "../../shared/domain/routing/response-cache.js";
import { bookkeepingSettled } from "../../shared/observability/after-answer.js";
import type { RunningApi } from "../../infra/local/server.js";
import { specOf } from "./envelopes.js";
import { filesClient } from "./files-client.js";
import { digest, footprint } from "./footprint.js";
import { fixtureScopes, fixturePath, newOwner, pathParamsOf, type FixtureOwner } from "./route-fixtures.js";
import { toJsonSchema, valid } from "./schema-arbitrary.js";
import { newTenant } from "./tenant.js";

/**
 * The matrix's principals: the owner of the fixtures; an intruder in another workspace of the owner's organization
 * (the closest a key gets to the owner's records); a stranger in another organization.
 */
export interface MatrixTenants {
  owner: FixtureOwner;
  intruder: FixtureOwner;
  stranger: FixtureOwner;
}

export async function matrixTenants(api: Pick<RunningApi, "url">): Promise<MatrixTenants> {
  const owner = newOwner(api, await newTenant());
  const intruder = newOwner(api, await newTenant({ organization: owner.tenant.caller.organization }));
  const stranger = newOwner(api, await newTenant());
  return { owner, intruder, stranger };
}

export interface Reply {
  status: number;
  requestId: string | null;
  text: string;
}

export async function callRow(url: string, row: RouteRow, path: string, options: { authorization?: string; body?: string; query?: string; contentType?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await fetch(`${url}${path}${options.query ?? ""}`, { method: row.method, headers, body: options.body, redirect: "manual" });
  return { status: response.status, requestId: response.headers.get("x-request-id"), text: await response.text() };
}

/** A one-file multipart form (a short text file), for rows that parse forms. */
const FORM_BOUNDARY = "tenant-matrix-boundary";
const aTextForm = () =>
  [`--${FORM_BOUNDARY}`, 'Content-Disposition: form-data; name="file"; filename="notes.txt"', "Content-Type: text/plain", "", "Tenant matrix notes.", `--${FORM_BOUNDARY}--`, ""].join("\r\n");

/** A body and query the row's schemas accept (so the refusal seen is the tenant check's, not validation's). */
export async function acceptedInput(row: RouteRow): Promise<{ body?: string; query?: string; contentType?: string }> {
  const spec = await specOf(row);
  const out: { body?: string; query?: string; contentType?: string } = {};
  // A form row with a path id (a library's documents): a valid form, so the answer is the record's check, not the parser's.
  if (spec.body && spec.parser && pathParamsOf(row.path).length) Object.assign(out, { body: aTextForm(), contentType: `multipart/form-data; boundary=${FORM_BOUNDARY}` });
  if (spec.body && !spec.parser) {
    const schema = toJsonSchema(spec.body);
    const body = fc.sample(valid(schema), { seed: 7, numRuns: 50 }).find((v) => spec.body!.safeParse(v).success);
    out.body = JSON.stringify(body ?? {});
  }
  if (spec.query) {
    const schema = toJsonSchema(spec.query);
    const candidates = fc.sample(valid(schema), { seed: 7, numRuns: 200 }) as Record<string, unknown>[];
    const query = candidates.find((q) => Object.values(q).every((v) => typeof v !== "object") && spec.query!.safeParse(Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)]))).success);
    if (query) out.query = `?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`;
  }
  return out;
}

/**
 * Calls a row that names `owner`'s records with `intruder`'s key; returns why the answer breaks tenancy, or
 * undefined: a workspace record must answer 404 and stay as it was (its workspace's footprint unchanged).
 */
export async function crossTenantProblem(url: string, row: RouteRow, owner: FixtureOwner, intruder: FixtureOwner): Promise<string | undefined> {
  const { path } = await fixturePath(owner, row.path);
  const input = await acceptedInput(row);
  const before = digest(await footprint(owner.tenant.caller));
  const reply = await callRow(url, row, path, { authorization: `Bearer ${intruder.tenant.key}`, ...input });
  const after = digest(await footprint(owner.tenant.caller));
  const scopes = pathParamsOf(row.path).map((p) => fixtureScopes[p] ?? "workspace");
  if (scopes.every((s) => s === "workspace") && reply.status !== 404) return `another workspace's key got ${reply.status} (expected 404): ${reply.text.slice(0, 300)}`;
  if (before !== after) return `another workspace's key changed the owner's records (${reply.status})`;
  return undefined;
}

/** Whether a list answered to `intruder` shows any of `owner`'s fixture ids. */
export async function leakedIds(url: string, row: RouteRow, owner: FixtureOwner, intruder: FixtureOwner): Promise<string[]> {
  const ids = (await Promise.all([...owner.made.entries()].filter(([name]) => (fixtureScopes[name] ?? "workspace") === "workspace" && name !== "version").map(([, id]) => id)));
  const reply = await callRow(url, row, row.path, { authorization: `Bearer ${intruder.tenant.key}` });
  return ids.filter((id) => reply.text.includes(id));
}

// ---- the response cache (docs/routing.md, "Response cache") ----

/** A model call the cache keeps: the route and a body made once, so every tenant sends the same bytes. */
export interface CacheCall {
  path: string;
  body: string;
}

/** How a call opts in: by its own header, or by its workspace's `response_cache_ttl_seconds` (set on every tenant of the case). */
export interface CacheOptIn {
  headers: Record<string, string>;
  /** Sets (`on`) or clears the workspace's setting, as the workspace's admin does. */
  workspace?(tenant: FixtureOwner, on: boolean): Promise<void>;
}

export const cacheOptIns: Record<"by header" | "by workspace setting", CacheOptIn> = {
  "by header": { headers: { [RESPONSE_CACHE_HEADER]: "on" } },
  "by workspace setting": {
    headers: {},
    async workspace({ api, tenant }, on) {
      const reply = await filesClient(api, tenant).request("PATCH", `/v1/admin/workspaces/${tenant.caller.workspace}`, { json: { response_cache_ttl_seconds: on ? 600 : null } });
      if (reply.status !== 200) throw new Error(`setting the workspace's response cache answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    },
  },
};

/** The calls the cache serves (chat and FIM), each with a marker of its own so that no two cases share a kept answer. */
export const cacheCalls: Record<"chat" | "FIM", (model: string) => CacheCall> = {
  chat: (model) => ({ path: "/v1/chat/completions", body: JSON.stringify({ model, messages: [{ role: "user", content: `cached? ${randomUUID()}` }], temperature: 0.3 }) }),
  FIM: (model) => ({ path: "/v1/fim/completions", body: JSON.stringify({ model, prompt: `def cached_${randomUUID().slice(0, 8)}():\n    `, suffix: "\n" }) }),
};

/** Every call with every opt-in: `[name, call, opt-in]`. */
export const cacheCases = (): [string, (model: string) => CacheCall, CacheOptIn][] =>
  Object.entries(cacheCalls).flatMap(([call, make]) => Object.entries(cacheOptIns).map(([how, optIn]) => [`${call}, cache on ${how}`, make, optIn] as [string, (model: string) => CacheCall, CacheOptIn]));

/**
 * One model id in every tenant's workspace, served by `provider` (a fine-tuned model registered in each): the same
 * request then has the same cache key in each, and only the workspace keeps their answers apart.
 */
export async function aCachedModel(tenants: FixtureOwner[], provider = "upstream"): Promise<string> {
  const { registerFineTuned } = await import("../../shared/services/models/catalog.js");
  const id = `ft:codestral-latest:cache-matrix:${randomUUID().slice(0, 8)}`;
  for (const { tenant } of tenants) await registerFineTuned({ workspace: tenant.caller.workspace, id, root: "codestral-latest", provider, upstream: "cache-matrix-model" });
  return id;
}

interface CachedReply {
  status: number;
  cache: string | null;
  backend: string | null;
  /** The answer's text (choice 0), or the body when it has none. */
  answer: string;
}

async function callCached(url: string, call: CacheCall, tenant: FixtureOwner, optIn: CacheOptIn): Promise<CachedReply> {
  // The cache is written after the answer (bookkeeping): the previous call's entry is in place before the next call.
  await bookkeepingSettled();
  const response = await fetch(`${url}${call.path}`, { method: "POST", headers: { ...optIn.headers, authorization: `Bearer ${tenant.tenant.key}`, "content-type": "application/json" }, body: call.body });
  const text = await response.text();
  let answer = text;
  try {
    answer = (JSON.parse(text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  } catch {
    // not an answer: the body says why
  }
  return { status: response.status, cache: response.headers.get(RESPONSE_CACHE_HEADER), backend: response.headers.get("x-inference-backend"), answer };
}

const described = (reply: CachedReply) => `${reply.status}, ${RESPONSE_CACHE_HEADER}: ${reply.cache}, backend ${reply.backend}: ${reply.answer.slice(0, 200)}`;

/**
 * The owner and then the intruder make the byte-identical call with the cache on (its model answering each upstream
 * call with a new text); returns why the answers break tenancy, or undefined. The intruder's call must be a miss
 * answered upstream, never the owner's answer; each one calling again gets its own kept answer (a hit), so the cache
 * was in use throughout.
 */
export async function crossTenantCacheProblem(url: string, call: CacheCall, optIn: CacheOptIn, owner: FixtureOwner, intruder: FixtureOwner): Promise<string | undefined> {
  await optIn.workspace?.(owner, true);
  await optIn.workspace?.(intruder, true);
  try {
    const first = await callCached(url, call, owner, optIn);
    if (first.status !== 200 || first.cache !== "miss" || first.backend === RESPONSE_CACHE_BACKEND) return `the owner's first call was not a miss answered upstream: ${described(first)}`;
    const across = await callCached(url, call, intruder, optIn);
    if (across.status === 200 && across.answer === first.answer) return `another workspace's key got the owner's kept answer: ${described(across)}`;
    if (across.status !== 200 || across.cache !== "miss" || across.backend === RESPONSE_CACHE_BACKEND) return `another workspace's key did not get a miss answered upstream: ${described(across)}`;
    const again = await callCached(url, call, owner, optIn);
    if (again.cache !== "hit" || again.backend !== RESPONSE_CACHE_BACKEND || again.answer !== first.answer) return `the owner calling again did not get its kept answer (${first.answer}): ${described(again)}`;
    const theirs = await callCached(url, call, intruder, optIn);
    if (theirs.cache !== "hit" || theirs.answer !== across.answer) return `another workspace's key calling again did not get its own kept answer (${across.answer}): ${described(theirs)}`;
    return undefined;
  } finally {
    await optIn.workspace?.(owner, false);
    await optIn.workspace?.(intruder, false);
  }
}
