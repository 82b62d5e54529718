import type { APIGatewayProxyEvent } from "aws-lambda";

/**
 * The absolute URL of another route of this API as the client reaches it. `requestContext.path` is the
 * path the client used (with the stage, or a custom domain's base path), so the prefix before the
 * route's own resource path is kept.
 */
export function publicUrl(event: APIGatewayProxyEvent, routePath: string): string {
  const headers = event.headers ?? {};
  const host = event.requestContext.domainName ?? headers.host ?? headers.Host ?? "localhost";
  const proto = headers["x-forwarded-proto"] ?? headers["X-Forwarded-Proto"] ?? "https";
  const clientPath = event.requestContext.path ?? event.path;
  const prefix = clientPath.endsWith(event.path) ? clientPath.slice(0, clientPath.length - event.path.length) : "";
  return `${proto}://${host}${prefix}${routePath}`;
}
