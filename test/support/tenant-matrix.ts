/**
 * The tenant matrix, generated from the route table: the keys every keyed row refuses, and what another
 * workspace's key sees of a record it does not own (docs/testing.md). Shared by test/fuzz/tenants.test.ts
 * and the proof that the matrix can fail (test/fuzz/ring-can-fail.test.ts).
 */
import fc from "fast-check";
import type { RouteRow } from "../../functions/routes.js";
import { specOf } from "./envelopes.js";
import { digest, footprint } from "./footprint.js";
import { fixtureScopes, fixturePath, pathParamsOf, type FixtureOwner } from "./route-fixtures.js";
import { toJsonSchema, valid } from "./schema-arbitrary.js";

export interface Reply {
  status: number;
  requestId: string | null;
  text: string;
}

export async function callRow(url: string, row: RouteRow, path: string, options: { authorization?: string; body?: string; query?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${url}${path}${options.query ?? ""}`, { method: row.method, headers, body: options.body, redirect: "manual" });
  return { status: response.status, requestId: response.headers.get("x-request-id"), text: await response.text() };
}

/** A body and query the row's schemas accept (so the refusal seen is the tenant check's, not validation's). */
export async function acceptedInput(row: RouteRow): Promise<{ body?: string; query?: string }> {
  const spec = await specOf(row);
  const out: { body?: string; query?: string } = {};
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
