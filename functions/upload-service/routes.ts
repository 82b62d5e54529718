/**
 * The routes the streaming upload service serves (functions/upload-service/server.ts), by route key, and how a request's
 * path matches their templates. Light on purpose: the local server (infra/local/server.ts), the container's entry and
 * the infrastructure (infra/upload-service.ts) read it without loading the service itself.
 */
import type { IncomingMessage } from "node:http";
import type { Permission } from "../../shared/domain/identity/permissions.js";
import type { Grants } from "../route-row.js";

export const UPLOAD_ROUTE_KEYS = ["POST /v1/files", "POST /v1/libraries/{library_id}/documents"] as const;
export type UploadRouteKey = (typeof UPLOAD_ROUTE_KEYS)[number];

/** The path template of a route key. */
export const templateOf = (key: UploadRouteKey): string => key.slice(key.indexOf(" ") + 1);

/** A path template as a matcher: each `{name}` takes one non-empty path segment, as API Gateway's variables do. */
export function pathMatcher(template: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const source = template
    .split(/(\{[a-z_]+\})/)
    .map((piece) => {
      const variable = /^\{([a-z_]+)\}$/.exec(piece);
      if (!variable) return piece.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      names.push(variable[1]!);
      return "([^/]+)";
    })
    .join("");
  const pattern = new RegExp(`^${source}$`);
  return (path) => {
    const found = pattern.exec(path);
    if (!found) return undefined;
    try {
      return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]));
    } catch {
      return undefined;
    }
  };
}

const matchers = UPLOAD_ROUTE_KEYS.map((key) => ({ key, method: key.slice(0, key.indexOf(" ")), matches: pathMatcher(templateOf(key)) }));

/** Empty segments (a trailing or doubled slash) are no segment, as the local server's matcher reads paths. */
export const normalPath = (path: string): string => `/${path.split("/").filter(Boolean).join("/")}`;

/** A request's header by its lower-case name (Node gives a repeated one as a list: its first), as the authorizer reads headers. */
export const headerReader =
  (req: IncomingMessage) =>
  (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };

/** The upload route a request is for, with its path's parameters; undefined for anything else. */
export function uploadRouteOf(method: string, path: string): { key: UploadRouteKey; params: Record<string, string> } | undefined {
  const normal = normalPath(path);
  for (const { key, method: routeMethod, matches } of matchers) {
    const params = routeMethod === method ? matches(normal) : undefined;
    if (params) return { key, params };
  }
  return undefined;
}

/** The template as an ALB listener rule's or a CloudFront behavior's path pattern: each variable becomes `*`. */
export const pathPatternOf = (key: UploadRouteKey): string => templateOf(key).replace(/\{[a-z_]+\}/g, "*");

/**
 * The realtime transcription WebSocket (docs/audio.md "Realtime"): a GET upgraded to a socket, which no Lambda can hold
 * (API Gateway's WebSocket API invokes a function per frame), so the streaming service serves it alone. Its policy is
 * here rather than in a route row because no API Gateway method or function stands behind it.
 */
export const REALTIME_PATH = "/v1/audio/transcriptions/realtime";
export const REALTIME_PERMISSION: Permission = "inference:invoke";
/** What a realtime session needs: the catalog, the spend limit and totals and the usage log, and Transcribe streaming. */
export const REALTIME_GRANTS: Grants = { tables: { models: "read", usage: "readwrite", tenancy: "read" }, speech: "transcribe", rateCounters: true };
