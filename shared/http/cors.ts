/**
 * CORS for browser clients (decision 0027). Off unless configured: `CORS_ORIGINS` is `*` or a
 * comma-separated list of origins (`https://app.example.com,http://localhost:3000`). In the cloud the CDK
 * context `corsOrigins` sets it on every function and API Gateway answers preflights (OPTIONS) and its own
 * errors; locally `npm start` reads it from the environment and the local server plays API Gateway's part.
 * Keys travel in headers, never cookies, so no credentials mode is offered.
 */
export const CORS_ORIGINS_ENV = "CORS_ORIGINS";

/** Request headers a browser client may send: the key (either header), bodies, the event stream's resume point, the response cache's word. */
export const CORS_ALLOW_HEADERS = ["Authorization", "Content-Type", "x-api-key", "Last-Event-ID", "Accept", "x-response-cache", "x-response-cache-ttl"];
/** Response headers a browser client may read besides the safelisted ones. */
export const CORS_EXPOSE_HEADERS = ["x-request-id", "Location", "Retry-After", "x-inference-backend", "x-inference-deployment", "x-response-cache"];
/** How long a browser may reuse a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

export type CorsSetting = "*" | string[];

/** The setting from its text: undefined when off; refuses what is not `*` or a list of http(s) origins. */
export function corsOrigins(value: string | undefined = process.env[CORS_ORIGINS_ENV]): CorsSetting | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (text === "*") return "*";
  const origins = text.split(",").map((o) => o.trim()).filter(Boolean);
  const bad = origins.filter((o) => !/^https?:\/\/[^/\s]+$/.test(o));
  if (bad.length) throw new Error(`${CORS_ORIGINS_ENV}: ${bad.join(", ")} is not an origin (scheme://host[:port], no path); use * or a comma-separated list`);
  return origins;
}

/** A request's headers as Lambda's event or Node's server has them. */
type RequestHeaders = Record<string, string | string[] | undefined> | null | undefined;

const headerOf = (headers: RequestHeaders, name: string): string | undefined => {
  const value = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/** The CORS headers of an answer to this request: none when off or when its origin is not allowed. */
export function corsHeaders(requestHeaders: RequestHeaders, setting = corsOrigins()): Record<string, string> {
  if (!setting) return {};
  const origin = headerOf(requestHeaders, "origin");
  if (setting === "*") return { "access-control-allow-origin": "*", "access-control-expose-headers": CORS_EXPOSE_HEADERS.join(", ") };
  if (!origin || !setting.includes(origin)) return setting.length ? { vary: "Origin" } : {};
  return { "access-control-allow-origin": origin, "access-control-expose-headers": CORS_EXPOSE_HEADERS.join(", "), vary: "Origin" };
}

/** The answer to a preflight (OPTIONS) for a path that takes `allowed` methods. */
export function preflightHeaders(requestHeaders: RequestHeaders, allowed: string[], setting = corsOrigins()): Record<string, string> {
  const base = corsHeaders(requestHeaders, setting);
  if (!base["access-control-allow-origin"]) return base;
  return {
    ...base,
    "access-control-allow-methods": [...allowed, "OPTIONS"].join(", "),
    "access-control-allow-headers": CORS_ALLOW_HEADERS.join(", "),
    "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
  };
}

/**
 * The CORS headers of an answer API Gateway makes itself (401, 404, 405, 413, 5xx): a gateway response cannot
 * test the origin against a list, so it echoes the request's origin (these bodies carry no data).
 */
export function gatewayCorsHeaders(requestHeaders: RequestHeaders, setting = corsOrigins()): Record<string, string> {
  if (!setting) return {};
  if (setting === "*") return corsHeaders(requestHeaders, setting);
  const origin = headerOf(requestHeaders, "origin");
  return origin ? { "access-control-allow-origin": origin, "access-control-expose-headers": CORS_EXPOSE_HEADERS.join(", "), vary: "Origin" } : { vary: "Origin" };
}
