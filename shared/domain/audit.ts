/**
 * The audit log's events (docs/decisions/0044-audit-log.md): one append-only record per privileged change,
 * who made it, what it changed, when and from where, with the values before and after where they are not
 * secrets. Pure: the store writes them, the service builds them, the route and the CLI read them.
 */
import { AUDIT_OPERATIONS } from "../schemas/audit.js";

// The operations are listed with the read route's schema (schemas are leaves); the domain speaks of them too.
export { AUDIT_OPERATIONS };

export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];

export const isAuditOperation = (value: string): value is AuditOperation => (AUDIT_OPERATIONS as readonly string[]).includes(value);

/** Who made the change: the key's principal (and the key), the operator at a CLI, or the platform itself. */
export interface AuditActor {
  kind: "user" | "service_account" | "cli" | "system";
  /** The user or service account id; the OS user for the CLI; `platform` for the system. */
  id: string;
  /** The API key the change came with (API changes only). */
  keyId?: string;
}

/** Where the change came from. */
export interface AuditOrigin {
  via: "api" | "cli" | "system";
  requestId?: string;
  /** The viewer's address (CloudFront-Viewer-Address, else API Gateway's sourceIp; locally the socket's). */
  address?: string;
  /** The hop that passed the request on when the address came from CloudFront's viewer header (API Gateway's source). */
  forwardedBy?: string;
}

export interface AuditTarget {
  /** What kind of thing changed: `workspace`, `api_key`, `service_account`, `user`, `connector`, `deployment`, … */
  type: string;
  id: string;
}

export interface AuditEvent {
  id: string;
  organization: string;
  /** The workspace the change applies to, when it applies to one. */
  workspace: string | null;
  /** ISO 8601 with milliseconds and `Z`. */
  at: string;
  operation: AuditOperation;
  actor: AuditActor;
  origin: AuditOrigin;
  targets: AuditTarget[];
  before: AuditValues | null;
  after: AuditValues | null;
}

export type AuditValues = Record<string, unknown>;

/**
 * Field names whose values are never written to the log, at any depth: secrets, keys, their hashes, tokens,
 * passwords, credentials and header values. Callers pass only what is not secret; this is the second line.
 */
// `tokens_per_minute` and kin are limits (counts of model tokens), not tokens.
const SECRET_NAME = /secret|token(?!s_per_)|password|passwd|hash|credential|authorization|cookie|^key$|api_?key$|private|^headers?$/i;

/** Longest string kept in before/after values: a log of changes, not of content. */
const MAX_STRING = 512;
const MAX_DEPTH = 4;

/** The values as the log keeps them: secret-named fields dropped, long strings cut, depth bounded. */
export function auditValues(values: AuditValues | null | undefined): AuditValues | null {
  if (!values) return null;
  return clean(values, 0) as AuditValues;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested]";
  if (Array.isArray(value)) return value.slice(0, 100).map((item) => clean(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    if (inner === undefined || SECRET_NAME.test(name)) continue;
    out[name] = clean(inner, depth + 1);
  }
  return out;
}

/** The fields that changed between two records, each side holding only those fields. */
export function changed(before: AuditValues, after: AuditValues): { before: AuditValues; after: AuditValues } {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
  return { before: Object.fromEntries(names.map((n) => [n, before[n] ?? null])), after: Object.fromEntries(names.map((n) => [n, after[n] ?? null])) };
}

/** What a reader filters on (the route's query and the CLI's options). */
export interface AuditFilter {
  /** A user, service account or key id, or the OS user of a CLI change. */
  actor?: string;
  /** Any target id (a key, workspace, user, service account, connector, deployment). */
  target?: string;
  operation?: AuditOperation;
  workspace?: string;
  /** ISO 8601 bounds, inclusive. */
  since?: string;
  until?: string;
}

/** Whether an event passes a filter (the store filters the same way on DynamoDB's side). */
export function matchesAudit(event: AuditEvent, filter: AuditFilter): boolean {
  if (filter.actor && event.actor.id !== filter.actor && event.actor.keyId !== filter.actor) return false;
  if (filter.target && !event.targets.some((t) => t.id === filter.target)) return false;
  if (filter.operation && event.operation !== filter.operation) return false;
  if (filter.workspace && event.workspace !== filter.workspace) return false;
  if (filter.since && event.at < filter.since) return false;
  if (filter.until && event.at > filter.until) return false;
  return true;
}
