/**
 * The fuzz ring's requests and properties, generated from a route-table row and its handler's zod
 * schemas (docs/testing.md). A request is valid or not by what the route's own schemas say of it, read
 * here the way the chain reads it; its answer must keep the row's contract:
 *   1. never a 5xx (and the server lives on);
 *   2. every answer has `x-request-id`, every error the row's family envelope;
 *   3. a request the schemas accept never gets a schema 422 (semantic refusals are listed per route);
 *   4. a write that is refused leaves the workspace's records, objects and counters as they were.
 */
import fc from "fast-check";
import * as z from "zod";
import { successStatuses } from "../../functions/route-row.js";
import type { RouteRow } from "../../functions/routes.js";
import { STORAGE_LIMIT_MSG } from "../../shared/domain/storage-limits.js";
import { routeKey } from "../../shared/http/policy.js";
import type { BodyParser } from "../../shared/http/body.js";
import { parseForm } from "../../shared/http/multipart.js";
import { envelopeProblem, isSchemaRefusal, specOf, type Answer, type DeclaredSpec } from "./envelopes.js";
import { changedSections, digest, footprint } from "./footprint.js";
import { adversarialBodies } from "./adversarial-text.js";
import { formNameBodies } from "./fuzz-form-names.js";
import { otlpBodies } from "./fuzz-otlp.js";
import { fixturePath, pathParamsOf, type FixtureOwner } from "./route-fixtures.js";
import {
  hostileString,
  hugeLength,
  json,
  nested,
  outOfRange,
  propertiesOf,
  toJsonSchema,
  valid,
  wrongTyped,
  type Hints,
  type JsonSchema,
} from "./schema-arbitrary.js";

/** One request of the ring; printed short when fast-check reports it (huge strings are summarised). */
export class FuzzRequest {
  constructor(
    readonly variant: string,
    readonly path: string,
    readonly query: [string, string][],
    readonly contentType: string | undefined,
    readonly body: string | Buffer | undefined,
  ) {}
  [fc.toStringMethod](): string {
    const short = (s: string) => (s.length > 160 ? `${JSON.stringify(s.slice(0, 120))}…(${s.length} chars)` : JSON.stringify(s));
    const body = this.body === undefined ? "none" : short(Buffer.isBuffer(this.body) ? this.body.toString("latin1") : this.body);
    return `${this.variant}: ${short(this.path)} query=${short(new URLSearchParams(this.query).toString())} content-type=${this.contentType} body=${body}`;
  }
}

export interface RingTarget {
  api: { url: string };
  owner: FixtureOwner;
  /** Draws for fields whose valid values are real records (a catalog model, a fixture's file). */
  hints: Hints;
  /** The longest a request may take (default: requestBudgetMs()). */
  budgetMs?: number;
}

/** Refusals a route may answer with 422 to input its schemas accept, and why. */
export type SemanticRefusals = Record<string, { reason: string; answer: (body: any) => boolean }>;

/** Refusals of input the schemas accept that every route may give (docs/decisions/0005-layers.md: one answer for a forged page token). */
const everyRoute: SemanticRefusals = {
  pageToken: { reason: "a page token the list did not issue", answer: (body) => body.detail.every((i: { msg: string }) => i.msg === "Invalid page token") },
  storage: { reason: "a value beyond what the store keeps (shared/domain/storage-limits.ts)", answer: (body) => body.detail.every((i: { msg: string }) => i.msg.includes(STORAGE_LIMIT_MSG)) },
};

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const HOSTILE_PATH = fc.oneof(
  hostileString,
  fc.constantFrom("..", ".", "%2e%2e%2f", "a/b", "x".repeat(3000), "0".repeat(36), "00000000-0000-0000-0000-000000000000", "WS%23x%23AGENT%23y"),
);

/** Pagination tokens an attacker forges: not base64, base64 of other JSON, another workspace's partition, huge. */
const HOSTILE_TOKEN = fc.oneof(
  hostileString,
  fc.constantFrom(
    Buffer.from(JSON.stringify({ pk: "WS#00000000-0000-4000-8000-000000000000", sk: "AGENT#00000000-0000-4000-8000-000000000000", createdKey: "x" })).toString("base64url"),
    Buffer.from(JSON.stringify({ v: 1, f: "name", d: "asc", sk: "HEAD#x", k: "y" })).toString("base64url"),
    Buffer.from("{").toString("base64url"),
    Buffer.from(JSON.stringify(nested(40))).toString("base64url"),
    "eyJ" + "A".repeat(5000),
  ),
);

/** Percent-encodes a path segment byte by byte (lone surrogates become U+FFFD, as a client's encoder would send them). */
const encodeSegment = (value: string) => [...Buffer.from(value, "utf8")].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`)).join("");

const isToken = (name: string) => /token|cursor/i.test(name);

interface Parts {
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: { contentType?: string; text?: string | Buffer } | undefined;
}

/** Whether the route's schemas accept these parts, read as the chain reads them (path, query, JSON or form body). */
async function schemasAccept(spec: DeclaredSpec, parts: Parts): Promise<boolean> {
  if (spec.params && !spec.params.safeParse(parts.params).success) return false;
  if (spec.query && !spec.query.safeParse(parts.query).success) return false;
  if (spec.parser?.otlp) return otlpAccepted(spec.parser, parts.body);
  if (!spec.body) return true;
  const { contentType = "", text } = parts.body ?? {};
  if (text === undefined || text.length === 0) return false;
  let value: unknown;
  if (spec.parser) {
    if (!/^multipart\/form-data/i.test(contentType)) return false;
    try {
      value = await parseForm(Buffer.isBuffer(text) ? text.toString("base64") : Buffer.from(text).toString("base64"), "base64", contentType, { files: 1 }, spec.parser.form?.lists);
    } catch {
      return false;
    }
  } else {
    if (!/^application\/(.+\+)?json($|;.+)/i.test(contentType)) return false;
    try {
      value = JSON.parse(text.toString());
    } catch {
      return false;
    }
  }
  return spec.body.safeParse(value).success;
}

/** Whether an OTLP route's parser reads the body (its ingest then keeps or rejects items with a 200, never a schema 422). */
async function otlpAccepted(parser: BodyParser, body: Parts["body"]): Promise<boolean> {
  if (body?.text === undefined) return false;
  const event = { headers: { "content-type": body.contentType ?? "" }, body: Buffer.from(body.text).toString("base64"), isBase64Encoded: true };
  try {
    await parser().before!({ event } as unknown as Parameters<NonNullable<ReturnType<BodyParser>["before"]>>[0]);
    return true;
  } catch {
    return false;
  }
}

const toPairs = (query: Record<string, unknown>): [string, string][] =>
  Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : Array.isArray(v) ? v.map((one) => [k, String(one)] as [string, string]) : [[k, typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)] as [string, string]]));

const fromPairs = (pairs: [string, string][]): Record<string, string | string[]> => {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of pairs) out[k] = k in out ? ([] as string[]).concat(out[k]!, v) : v;
  return out;
};

/** Breaks one field of an object value: drops it, retypes it, pushes it out of range, blows it up, nests it, poisons it. */
function brokenObject(schema: JsonSchema, root: JsonSchema, base: fc.Arbitrary<any>): fc.Arbitrary<{ how: string; value: unknown }> {
  const properties = propertiesOf(schema, root);
  const names = Object.keys(properties);
  const required = (schema.required ?? []).filter((n) => n in properties);
  const field = names.length ? fc.constantFrom(...names) : fc.constant("extra");
  const set = (how: string, value: fc.Arbitrary<unknown>, name = field) =>
    fc.tuple(base, name, value).map(([object, key, v]) => ({ how: `${how} ${key}`, value: { ...(object && typeof object === "object" ? object : {}), [key]: v } }));
  const options: fc.Arbitrary<{ how: string; value: unknown }>[] = [
    set("wrong type for", field.chain((name) => wrongTyped(properties[name] ?? {}))),
    set("huge string in", hugeLength.map((n) => "z".repeat(n))),
    set("huge array in", fc.constantFrom(2_000, 30_000).map((n) => Array.from({ length: n }, (_, i) => `item-${i}`))),
    set("deep nesting in", fc.constantFrom(31, 33, 40, 120).map((n) => nested(n))),
    set("hostile text in", hostileString),
    set("many keys in", fc.constant(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])))),
    set("unknown field", json(2), fc.constantFrom("unexpected_field", "__proto__", "constructor", "workspace", "organization", "owner", "id")),
  ];
  if (required.length) options.push(fc.tuple(base, fc.constantFrom(...required)).map(([object, key]) => { const { [key]: _, ...rest } = object ?? {}; return { how: `missing ${key}`, value: rest }; }));
  const ranged = names.filter((n) => outOfRange(properties[n]!));
  if (ranged.length) options.push(set("out of range", fc.constantFrom(...ranged).chain((n) => outOfRange(properties[n]!)!), fc.constantFrom(...ranged)));
  // One level down: the same breakage inside a nested object field.
  const objectFields = names.filter((n) => Object.keys(propertiesOf(properties[n]!, root)).length);
  if (objectFields.length) {
    options.push(
      fc.tuple(base, fc.constantFrom(...objectFields)).chain(([object, key]) =>
        brokenObject(properties[key]!, root, fc.constant(object?.[key] ?? {})).map((inner) => ({ how: `${key}.${inner.how}`, value: { ...(object ?? {}), [key]: inner.value } })),
      ),
    );
  }
  return fc.oneof(...options);
}

function multipart(fields: { name: string; value: string | Buffer; filename?: string; type?: string }[], boundary = "fuzzboundary"): Buffer {
  const chunks: Buffer[] = [];
  for (const f of fields) {
    const disposition = `form-data; name="${f.name}"${f.filename !== undefined ? `; filename="${f.filename}"` : ""}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${f.type ? `Content-Type: ${f.type}\r\n` : ""}\r\n`), Buffer.from(f.value), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Forms for a multipart route: valid ones from the form schema, and forms cut short, mis-bounded, mis-typed. */
function formBodies(): fc.Arbitrary<{ variant: string; contentType: string; text: Buffer }> {
  const content = fc.oneof(fc.constant('{"messages":[]}\n'), fc.string({ maxLength: 200 }), fc.constant(""), fc.constant("{not json\n"));
  const filename = fc.oneof(fc.constantFrom("data.jsonl", "a.txt", "x.json", "train.jsonl"), hostileString.filter((s) => !/["\r\n]/.test(s)), fc.constant("f".repeat(600) + ".jsonl"));
  const purpose = fc.option(fc.oneof(fc.constantFrom("fine-tune", "batch", "ocr"), hostileString.filter((s) => !/\r|\n/.test(s))), { nil: undefined });
  const expiry = fc.option(fc.oneof(fc.integer({ min: -5, max: 9000 }).map(String), fc.constant("1.5"), fc.constant("soon")), { nil: undefined });
  const form = fc.record({ content, filename, purpose, expiry, withFile: fc.boolean() }).map(({ content, filename, purpose, expiry, withFile }) => {
    const fields: Parameters<typeof multipart>[0] = [];
    if (withFile) fields.push({ name: "file", value: content, filename, type: "application/octet-stream" });
    if (purpose !== undefined) fields.push({ name: "purpose", value: purpose });
    if (expiry !== undefined) fields.push({ name: "expiry", value: expiry });
    return multipart(fields);
  });
  const ct = "multipart/form-data; boundary=fuzzboundary";
  return fc.oneof(
    form.map((text) => ({ variant: "form", contentType: ct, text })),
    fc.tuple(form, fc.double({ min: 0.05, max: 0.95, noNaN: true })).map(([text, at]) => ({ variant: "form cut short", contentType: ct, text: text.subarray(0, Math.floor(text.length * at)) })),
    form.map((text) => ({ variant: "form with another boundary", contentType: "multipart/form-data; boundary=other", text })),
    form.map((text) => ({ variant: "form without boundary", contentType: "multipart/form-data", text })),
    form.map((text) => ({ variant: "form as json", contentType: "application/json", text })),
    fc.constant({ variant: "empty form", contentType: ct, text: Buffer.alloc(0) }),
    fc.constant({ variant: "two files", contentType: ct, text: multipart([{ name: "file", value: "{}\n", filename: "a.jsonl" }, { name: "file", value: "{}\n", filename: "b.jsonl" }]) }),
  );
}

/** JSON bodies for a JSON route: valid ones from the schema and every kind of breakage. */
function jsonBodies(schema: z.ZodType, hints: Hints, modelCall = false): fc.Arbitrary<{ variant: string; contentType?: string; text?: string }> {
  const js = toJsonSchema(schema);
  const good = valid(js, hints);
  const broken = brokenObject(js, js, good);
  const ct = "application/json";
  return fc.oneof(
    { weight: 4, arbitrary: good.map((v) => ({ variant: "valid body", contentType: ct, text: JSON.stringify(v) })) },
    { weight: 5, arbitrary: broken.map(({ how, value }) => ({ variant: how, contentType: ct, text: JSON.stringify(value) })) },
    { weight: 1, arbitrary: fc.tuple(good, fc.nat()).map(([v, n]) => { const t = JSON.stringify(v); return { variant: "malformed json", contentType: ct, text: t.slice(0, n % Math.max(1, t.length)) + (n % 3 ? "" : "}{,") }; }) },
    { weight: 1, arbitrary: fc.tuple(good, fc.constantFrom(undefined, "text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16")).map(([v, type]) => ({ variant: `content-type ${type}`, contentType: type, text: JSON.stringify(v) })) },
    { weight: 1, arbitrary: fc.constantFrom("42", "[]", "null", '"text"', "true", "", " ", "{}").map((text) => ({ variant: "not an object", contentType: ct, text })) },
    { weight: 1, arbitrary: fc.constant({ variant: "no body", contentType: ct, text: undefined }) },
    ...(modelCall ? [{ weight: 2, arbitrary: adversarialBodies(good) }] : []),
  );
}

/** Query strings: valid ones from the schema, and hostile values (forged page tokens included) in each parameter. */
function queries(schema: z.ZodType | undefined, hints: Hints): fc.Arbitrary<{ variant: string; pairs: [string, string][] }> {
  if (!schema) return fc.oneof(fc.constant({ variant: "", pairs: [] as [string, string][] }), hostileString.map((v) => ({ variant: "stray query", pairs: [["x", v]] as [string, string][] })));
  const js = toJsonSchema(schema);
  const names = Object.keys(js.properties ?? {});
  const good = valid(js, hints).map((v) => toPairs(v as Record<string, unknown>));
  const options: fc.Arbitrary<{ variant: string; pairs: [string, string][] }>[] = [good.map((pairs) => ({ variant: "", pairs }))];
  if (names.length) {
    const hostile = fc.tuple(good, fc.constantFrom(...names)).chain(([pairs, name]) =>
      (isToken(name) ? HOSTILE_TOKEN : fc.oneof(hostileString, wrongTyped(js.properties![name]!).map(String), hugeLength.map((n) => "q".repeat(Math.min(n, 9000))))).map(
        (value) => ({ variant: `hostile query ${name}`, pairs: [...pairs.filter(([k]) => k !== name), [name, value]] as [string, string][] }),
      ),
    );
    options.push(hostile);
  }
  return fc.oneof(...options);
}

/** Every request the ring sends to a row: a valid or broken path, query and body. */
export async function requestsFor(row: RouteRow, target: RingTarget): Promise<fc.Arbitrary<FuzzRequest>> {
  const spec = await specOf(row);
  const { params: fixtureParams } = await fixturePath(target.owner, row.path);
  const names = pathParamsOf(row.path);
  const paramSchema = spec.params ? toJsonSchema(spec.params) : undefined;
  const paramArb = names.length
    ? fc.record(
        Object.fromEntries(
          names.map((name) => [
            name,
            fc.oneof(
              { weight: 6, arbitrary: fc.constant(fixtureParams[name]!) },
              { weight: 1, arbitrary: valid(paramSchema?.properties?.[name] ?? { type: "string" }).map(String) },
              { weight: 2, arbitrary: HOSTILE_PATH },
            ),
          ]),
        ),
      )
    : fc.constant({} as Record<string, string>);
  const bodyArb: fc.Arbitrary<{ variant: string; contentType?: string; text?: string | Buffer }> = spec.parser?.otlp
    ? otlpBodies(spec.parser.otlp)
    : spec.parser
    ? fc.oneof(formBodies(), formNameBodies(spec.body))
    : spec.body
      ? jsonBodies(spec.body, target.hints, Boolean(row.grants.models))
      : row.method === "GET"
        ? fc.constant({ variant: "" })
        : fc.oneof({ weight: 5, arbitrary: fc.constant({ variant: "" }) }, { weight: 1, arbitrary: fc.constant({ variant: "unasked body", contentType: "application/json", text: "{" }) });
  return fc.tuple(paramArb, queries(spec.query, target.hints), bodyArb).map(([params, query, body]) => {
    const path = row.path.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => encodeSegment(params[name]!));
    const variant = [body.variant, query.variant, ...names.filter((n) => params[n] !== fixtureParams[n]).map((n) => `path ${n}`)].filter(Boolean).join(", ") || "valid";
    return new FuzzRequest(variant, path, query.pairs, body.contentType, body.text);
  });
}

async function send(target: RingTarget, row: RouteRow, request: FuzzRequest): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (row.auth !== "public") headers.authorization = `Bearer ${target.owner.tenant.key}`;
  if (request.contentType) headers["content-type"] = request.contentType;
  const search = request.query.length ? `?${new URLSearchParams(request.query).toString()}` : "";
  const response = await fetch(`${target.api.url}${request.path}${search}`, { method: row.method, headers, body: request.body as BodyInit | undefined, redirect: "manual" });
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json") && text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, requestId: response.headers.get("x-request-id"), body };
}

/** The path parameters the server would see for this request (decoded as API Gateway decodes them). */
function paramsOf(row: RouteRow, path: string): Record<string, string> | undefined {
  const pattern = new RegExp(`^${row.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[A-Za-z_]+\}/g, "([^/]+)")}$`);
  const match = pattern.exec(path);
  if (!match) return undefined;
  try {
    return Object.fromEntries(pathParamsOf(row.path).map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
  } catch {
    return undefined;
  }
}

/** Uncaught errors since the ring started listening: one request must never take the process down. */
const uncaught: Error[] = [];
let listening = false;
function watchUncaught(): void {
  if (listening) return;
  listening = true;
  process.on("uncaughtException", (error) => uncaught.push(error));
}

/** Checks one request's answer against the row's contract; returns the broken property, or undefined. */
/** The codes of API Gateway's own answers (shared/http/gateway.ts) to a path no handler of the row serves. */
const GATEWAY_CODES = ["route_not_found", "method_not_allowed"];

/** Routes this process has already sent a request to. */
const warmRoutes = new Set<string>();

/**
 * By workspace, its footprint after the last refused write, and the route of that write: the same route's next
 * write starts from it instead of reading the workspace again (the reads were half the ring's CPU). Any other
 * answer forgets it: an accepted write changed the workspace and may go on changing it (a batch job's run), and
 * a footprint from before another route's requests is not "just before" this one.
 */
const lastFootprint = new Map<string, { route: string; footprint: Record<string, unknown> }>();

export async function checkRequest(row: RouteRow, target: RingTarget, request: FuzzRequest, semantic: SemanticRefusals = {}): Promise<string | undefined> {
  watchUncaught();
  const spec = await specOf(row);
  const seen = uncaught.length;
  const write = WRITES.has(row.method);
  const owner = target.owner.tenant.caller;
  const known = lastFootprint.get(owner.workspace);
  lastFootprint.delete(owner.workspace);
  const before = write ? (known?.route === routeKey(row) ? known.footprint : await footprint(owner)) : undefined;
  const started = performance.now();
  const answer = await send(target, row, request);
  const took = performance.now() - started;
  const budget = target.budgetMs ?? requestBudgetMs();
  // A route's first request is its cold start (its handler imported, the API document built once): not budgeted.
  const warm = warmRoutes.has(routeKey(row));
  warmRoutes.add(routeKey(row));
  if (warm && took > budget) return `took ${Math.round(took)} ms, over the ring's ${budget} ms budget per request`;
  if (uncaught.length > seen) return `the process had an uncaught exception: ${uncaught[seen]!.message}`;
  if (answer.status >= 500) return `answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 400)}`;
  if (!answer.requestId) return `answered ${answer.status} without x-request-id`;
  if (answer.status < 400 && !successStatuses(row).includes(answer.status)) {
    return `answered ${answer.status}; the OpenAPI document says ${successStatuses(row).join(" or ")} (the row's doc.status)`;
  }
  const params = paramsOf(row, request.path);
  // A path that, as sent, is none of the row's (an empty segment `/executions//trace/info`, or `..` that the
  // client's URL resolves away) reaches no handler: API Gateway's own answer is the answer, in the platform
  // envelope whatever the row's family: 404 (route_not_found), or 405 (method_not_allowed) where the path it
  // reached is another resource without this method.
  const byGateway = GATEWAY_CODES.includes(answer.body?.code);
  const sentPath = new URL(request.path, "http://ring.invalid").pathname;
  const gatewayAnswer = (params === undefined || paramsOf(row, sentPath) === undefined) && byGateway;
  // A '.' or '..' segment is resolved by the client's URL parser: such a request reaches another path, maybe no route at all.
  const moved = request.path.split("/").some((segment) => segment === "." || segment === "..") && byGateway;
  if (answer.status >= 400 && !gatewayAnswer && !moved) {
    const problem = envelopeProblem(row, answer);
    if (problem) return problem;
  }
  // A path the client's URL resolves to another route's (`/v1/conversations/./restart` is `POST /v1/conversations/{conversation_id}`
  // with id `restart`) is judged by that route's schemas, not this row's.
  const accepted = params !== undefined && paramsOf(row, sentPath) !== undefined && (await schemasAccept(spec, { params, query: fromPairs(request.query), body: request.body === undefined && !request.contentType ? undefined : { contentType: request.contentType, text: request.body } }));
  if (accepted && isSchemaRefusal(answer)) {
    const allowed = Object.values({ ...everyRoute, ...semantic }).some((refusal) => refusal.answer(answer.body));
    if (!allowed) return `a request its schemas accept got a schema 422: ${JSON.stringify(answer.body).slice(0, 400)}`;
  }
  if (write && answer.status >= 400) {
    const after = await footprint(owner);
    if (digest(before) !== digest(after)) return `a refused write (${answer.status}) changed the workspace: ${changedSections(before!, after).join(", ")}`;
    lastFootprint.set(owner.workspace, { route: routeKey(row), footprint: after });
  }
  // An accepted write that started engine work (a batch job, a dataset import) goes on changing the workspace after
  // its answer: the next request's footprint is read once that work has settled, or it would be blamed for it.
  if (write && answer.status < 400 && row.grants.executions) await settled(owner);
  return undefined;
}

/** Waits until two reads of the workspace's footprint, a quarter second apart, agree (at most 15 s). */
async function settled(owner: Parameters<typeof footprint>[0]): Promise<void> {
  let last = digest(await footprint(owner));
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = digest(await footprint(owner));
    if (now === last) return;
    last = now;
  }
}

/**
 * The ring's time budget per request (FUZZ_BUDGET_MS, default 10 s on the shared 2-core machine): a request
 * over it is a failure, as one request that holds the event loop holds every tenant's (docs/testing.md).
 */
export const requestBudgetMs = (): number => Number(process.env.FUZZ_BUDGET_MS ?? 10_000);

export interface RingSettings {
  runs: number;
  seed: number;
}

/**
 * The ring's budget in `npm test`: about this many requests over the whole route table, shared out evenly, so a
 * new route costs the other routes some runs instead of adding minutes (docs/decisions/0047-test-suite-in-parallel.md).
 * 4,200 requests was 20 a route for the 207 routes of the day; a request takes ~20 ms of CPU on average.
 */
export const RING_REQUEST_BUDGET = 4_200;
/** Runs a route never goes below (below that, a route's broken-request shapes are barely sampled) nor above. */
export const RING_RUNS_PER_ROUTE = { min: 8, max: 20 } as const;

/** Runs per route for a table of `routeCount` rows: the budget shared out, within RING_RUNS_PER_ROUTE. */
export const runsWithinBudget = (routeCount: number): number =>
  Math.min(RING_RUNS_PER_ROUTE.max, Math.max(RING_RUNS_PER_ROUTE.min, Math.floor(RING_REQUEST_BUDGET / Math.max(1, routeCount))));

/** FUZZ_RUNS and FUZZ_SEED (npm run fuzz -- --runs N --seed S); `npm test` runs the budget's share and a fixed seed. */
export const ringSettings = (routeCount: number): RingSettings => ({
  runs: Number(process.env.FUZZ_RUNS ?? runsWithinBudget(routeCount)),
  seed: Number(process.env.FUZZ_SEED ?? 20_260_611),
});

/** Runs the ring on one row: throws fast-check's report (seed, path, shrunk request, broken property) on failure. */
export async function fuzzRoute(row: RouteRow, target: RingTarget, settings: RingSettings, semantic: SemanticRefusals = {}): Promise<number> {
  let sent = 0;
  const arbitrary = await requestsFor(row, target);
  await fc.assert(
    fc.asyncProperty(arbitrary, async (request) => {
      sent += 1;
      const problem = await checkRequest(row, target, request, semantic);
      if (problem) throw new Error(`${routeKey(row)}: ${problem}`);
    }),
    { seed: settings.seed, numRuns: settings.runs },
  );
  return sent;
}
