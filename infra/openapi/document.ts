/**
 * The OpenAPI 3.1 document, generated from the route table and the zod schemas the handlers validate with
 * (decision 0026): each row is an operation; its handler's `route()` spec gives the parameters, the body and
 * the success body (`response` or `returns`), the row its auth, error family, streaming and `doc` (status,
 * media, deprecation). The build writes it beside the GET /openapi.json function (infra/build.ts); from
 * source (npm start, tests) that handler generates it on its first request.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as z from "zod";
import { successStatuses } from "../../functions/route-row.js";
import { areaOf, handlerModule, routes as allRoutes, type RouteRow } from "../../functions/routes.js";
import { errorEnvelopes } from "../../shared/http/errors.js";
import type { RouteHandler, RouteSpec } from "../../shared/http/route.js";
import { mistralReference, specOperations, type SpecOperation } from "./reference.js";

type Json = Record<string, any>;
export type DeclaredSpec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.0.0";
const ROOT = join(import.meta.dirname, "..", "..");

/** What a row's handler declared (its `route()` spec), by importing the handler module from source. */
export async function declaredSpec(row: RouteRow): Promise<DeclaredSpec> {
  const module = (await import(pathToFileURL(join(ROOT, handlerModule(row.handler))).href)) as { handler: RouteHandler };
  return module.handler.spec ?? {};
}

const key = (row: Pick<RouteRow, "method" | "path">) => `${row.method} ${row.path}`;

/** The spec's group of each operation, and the group an area's spec rows mostly belong to (for its extension rows). */
function tagger(rows: readonly RouteRow[], spec: SpecOperation[]) {
  const groupOf = new Map(spec.map((op) => [`${op.method} ${op.path}`, op.group]));
  const votes = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const group = groupOf.get(key(row));
    if (!group) continue;
    const area = votes.get(areaOf(row)) ?? new Map<string, number>();
    area.set(group, (area.get(group) ?? 0) + 1);
    votes.set(areaOf(row), area);
  }
  const areaGroup = (area: string) => {
    const counted = [...(votes.get(area) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
    return counted[0]?.[0] ?? `${area[0]!.toUpperCase()}${area.slice(1).replace(/-/g, " ")} (extension)`;
  };
  return (row: RouteRow) => groupOf.get(key(row)) ?? areaGroup(areaOf(row));
}

/** Schemas the document shares by reference: hoisted `$defs` of the zod output, and the error envelopes. */
class Components {
  readonly schemas: Record<string, Json> = {};

  /** A zod schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses), its `$defs` moved to components. */
  convert(schema: z.ZodType, io: "input" | "output", hint: string): Json {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any", cycles: "ref", reused: "inline" }) as Json;
    delete json.$schema;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    delete json.$defs;
    const renamed = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) renamed.set(name, this.add(/^__schema\d+$|^schema\d+$/.test(name) ? `${hint}_${name}` : name, def));
    for (const [, component] of renamed) this.schemas[component] = rewriteRefs(this.schemas[component], renamed) as Json;
    const rewritten = rewriteRefs(json, renamed) as Json;
    if (!JSON.stringify(rewritten).includes('"$ref":"#"')) return rewritten;
    // A schema that contains itself: a component of its own, "#" pointing there.
    const self = this.add(hint, {});
    this.schemas[self] = rewriteRefs(rewritten, renamed, `#/components/schemas/${self}`) as Json;
    return { $ref: `#/components/schemas/${self}` };
  }

  /** Adds a schema under a free name (the same content keeps its name) and returns that name. */
  add(name: string, schema: Json): string {
    const safe = name.replace(/[^A-Za-z0-9._-]/g, "_");
    for (let i = 1; ; i += 1) {
      const candidate = i === 1 ? safe : `${safe}_${i}`;
      const existing = this.schemas[candidate];
      if (!existing) {
        this.schemas[candidate] = schema;
        return candidate;
      }
      if (JSON.stringify(existing) === JSON.stringify(schema)) return candidate;
    }
  }
}

function rewriteRefs(node: unknown, renamed: Map<string, string>, root = "#"): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, renamed, root));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) out[k] = `#/components/schemas/${renamed.get(v.slice("#/$defs/".length)) ?? v}`;
    else if (k === "$ref" && v === "#") out[k] = root;
    else out[k] = rewriteRefs(v, renamed, root);
  }
  return out;
}

/** A multipart form's file part (an object with the bytes after the parser) is binary on the wire. */
function multipartSchema(schema: Json): Json {
  const properties = Object.fromEntries(
    Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, part]) =>
      part.properties?.content && part.properties?.filename ? [name, { type: "string", contentMediaType: "application/octet-stream", description: part.description ?? "The file's bytes" }] : [name, part],
    ),
  );
  return { ...schema, properties };
}

const FAMILY_TITLES = { platform: "Platform", workflow: "Workflow", observability: "Observability" } as const;

/** The error responses of every family, shared by reference; gateway answers (401, 404 of unknown routes) use the platform envelope. */
function errorResponses(components: Components): Json {
  const body = (name: string, schema: z.ZodType) => ({ $ref: `#/components/schemas/${components.add(name, components.convert(schema, "output", name))}` });
  const json = (description: string, schema: Json) => ({ description, content: { "application/json": { schema } }, headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } } });
  return {
    Unauthorized: json("No valid API key (API Gateway's answer, in the platform envelope)", body("PlatformError", errorEnvelopes.platform)),
    PlatformError: json("An error in the platform envelope `{object, message, type, param, code}`", body("PlatformError", errorEnvelopes.platform)),
    PlatformValidationError: json("Request validation failed: FastAPI's `{detail: [{loc, msg, type}]}`", body("PlatformValidationError", errorEnvelopes.platformValidation)),
    WorkflowError: json('An error in the workflow envelope `{detail, code: "WF_xxxx"}`', body("WorkflowError", errorEnvelopes.workflow)),
    WorkflowValidationError: json("Request validation failed: `{detail: [{loc, msg, type}], code}`", body("WorkflowValidationError", errorEnvelopes.workflowValidation)),
    ObservabilityError: json("An error in the observability envelope `{detail: {message, error_code}}`", body("ObservabilityError", errorEnvelopes.observability)),
    ObservabilityValidationError: json("Request validation failed, in the observability envelope", body("ObservabilityError", errorEnvelopes.observability)),
  };
}

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

const LOCATION = { description: "Where the content is (a short-lived URL); clients follow it", schema: { type: "string", format: "uri" } };

const STATUS_TEXT: Record<number, string> = { 200: "OK", 201: "Created", 202: "Accepted", 204: "No content", 302: "Redirect to the content" };

/** One operation: parameters, body, the success answer and the family's error answers. */
function operation(row: RouteRow, spec: DeclaredSpec, tag: string, components: Components): Json {
  const reference = mistralReference()[key(row)];
  const operationId = reference?.operationId ?? row.handler.replace(/[/-]/g, "_");
  const parameters: Json[] = [];
  const paramsSchema = spec.params ? components.convert(spec.params, "input", operationId) : { properties: {} };
  for (const [, name] of row.path.matchAll(/\{([^}]+)\}/g)) {
    parameters.push({ name, in: "path", required: true, schema: paramsSchema.properties?.[name!] ?? { type: "string" } });
  }
  if (spec.query) {
    // The wire carries text; the output view says what it means (numbers, booleans), the input view what may be left out.
    const output = components.convert(spec.query, "output", operationId);
    const input = components.convert(spec.query, "input", operationId);
    const required = new Set<string>(input.required ?? []);
    for (const [name, schema] of Object.entries((output.properties ?? {}) as Record<string, Json>)) {
      const repeated = schema.type === "array";
      parameters.push({ name, in: "query", required: required.has(name), schema, ...(repeated ? { style: "form", explode: true } : {}), ...(schema.description ? { description: schema.description } : {}) });
    }
  }

  const op: Json = {
    tags: [tag],
    summary: row.doc?.summary ?? reference?.summary ?? summaryOf(row),
    operationId,
    ...(parameters.length ? { parameters } : {}),
  };
  if (row.doc?.deprecated || reference?.deprecated) op.deprecated = true;
  if (row.extension) op["x-extension"] = true;
  if (row.auth === "public") op.security = [];
  else if (row.keyHeader) op.security = [{ bearer: [] }, { apiKeyHeader: [] }];
  if (row.auth === "admin") op["x-admin-only"] = true;
  if (row.permission) op["x-permission"] = row.permission;

  if (spec.body) {
    const multipart = Boolean(spec.parser);
    const schema = components.convert(spec.body, "input", `${operationId}_body`);
    const optional = spec.body.safeParse(undefined).success;
    const media = spec.parser?.media ?? (multipart ? "multipart/form-data" : "application/json");
    op.requestBody = { required: !optional, content: { [media]: { schema: multipart ? multipartSchema(schema) : schema } } };
  }

  const [status, ...others] = successStatuses(row) as [number, ...number[]];
  const bodySchema = spec.response ?? spec.returns;
  const success: Json = { description: STATUS_TEXT[status] ?? "Success", headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } } };
  if (status === 302) success.headers.Location = LOCATION;
  else if (status !== 204) {
    const content: Json = {};
    if (row.doc?.media) content[row.doc.media] = { schema: { type: "string", contentMediaType: row.doc.media } };
    else if (!row.streaming || bodySchema || row.method !== "GET") content["application/json"] = { schema: bodySchema ? components.convert(bodySchema, "output", `${operationId}_response`) : {} };
    if (row.streaming) content["text/event-stream"] = { schema: { type: "string", description: "Server-sent events (`data: <json>` frames)" } };
    success.content = content;
  }
  const family = FAMILY_TITLES[row.errors];
  const responses: Json = { [String(status)]: success };
  for (const other of others) responses[String(other)] = { description: STATUS_TEXT[other], headers: { "x-request-id": { $ref: "#/components/headers/RequestId" }, Location: LOCATION } };
  if (row.auth !== "public") {
    responses["401"] = ref("Unauthorized");
    responses["403"] = ref(`${family}Error`);
  }
  if (parameters.some((p) => p.in === "path")) responses["404"] = ref(`${family}Error`);
  if (spec.params || spec.query || spec.body) responses["422"] = ref(`${family}ValidationError`);
  if (row.auth !== "public") responses["429"] = ref(`${family}Error`);
  responses.default = ref(`${family}Error`);
  op.responses = responses;
  return op;
}

function summaryOf(row: RouteRow): string {
  const name = row.handler.split("/").at(-1)!.replace(/-/g, " ");
  return `${name[0]!.toUpperCase()}${name.slice(1)} (${areaOf(row)})`;
}

export interface DocumentInput {
  rows?: readonly RouteRow[];
  specOf?: (row: RouteRow) => Promise<DeclaredSpec>;
}

/** The whole document. Rows without a declared schema still give a valid operation (an empty JSON 200). */
export async function openApiDocument(input: DocumentInput = {}): Promise<Json> {
  const rows = input.rows ?? allRoutes;
  const specOf = input.specOf ?? declaredSpec;
  const spec = specOperations();
  const tagOf = tagger(rows, spec);
  const components = new Components();
  const responses = errorResponses(components);
  const paths: Json = {};
  const used = new Set<string>();
  for (const row of rows) {
    const tag = tagOf(row);
    used.add(tag);
    (paths[row.path] ??= {})[row.method.toLowerCase()] = operation(row, await specOf(row), tag, components);
  }
  const served = new Set(rows.map(key));
  const groups = [...new Set(spec.map((op) => op.group))];
  const tags = [...groups.filter((g) => used.has(g)), ...[...used].filter((t) => !groups.includes(t)).sort()].map((name) => ({
    name,
    ...(groups.includes(name) ? {} : { description: "Routes of ours that the spec does not list (`x-extension: true`)" }),
  }));
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Platform API",
      version: API_VERSION,
      description:
        "A Mistral-compatible AI-platform API on AWS serverless. Every route takes `Authorization: Bearer <key>` unless it says otherwise; " +
        "errors come in the envelope of the route's family (platform, workflow, observability). Operations marked `x-extension` are ours, not the spec's.",
      "x-spec-operations-not-served": spec.filter((op) => !served.has(`${op.method} ${op.path}`)).map((op) => `${op.method} ${op.path}`),
    },
    tags,
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API key of the workspace: `Authorization: Bearer <key>`" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "The same key in `x-api-key` (routes the SDK's beta.users calls so)" },
      },
      headers: { RequestId: { description: "The request's id, also in the logs", schema: { type: "string" } } },
      responses,
      schemas: components.schemas,
    },
  };
}
