import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from "aws-lambda";
import { bearerKey, plainKey } from "../../shared/domain/api-keys.js";
import type { Caller } from "../../shared/domain/caller.js";
import { toCallerContext } from "../../shared/http/caller.js";
import { logger } from "../../shared/observability/logger.js";
import { resolveCaller } from "../../shared/services/identity/callers.js";

/** API Gateway answers 401 when a REQUEST authorizer fails with exactly this message. */
const UNAUTHORIZED = "Unauthorized";

/**
 * Resolves `Authorization: Bearer <key>` to the caller and its roles (shared/services/identity/callers.ts).
 * API Gateway caches the answer per header, so the
 * policy allows the whole API rather than the one method that happened to be called first.
 */
export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const headers = event.headers ?? {};
  const caller = await callerOf((wanted) => Object.entries(headers).find(([name]) => name.toLowerCase() === wanted)?.[1] ?? undefined);
  if (!caller) throw new Error(UNAUTHORIZED);
  return {
    principalId: caller.principal,
    policyDocument: {
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: "Allow", Resource: wholeApi(event.methodArn) }],
    },
    context: toCallerContext(caller),
  };
}

/**
 * The caller a request's key stands for, or undefined (refused): the authorizer's whole judgement, also
 * what the upload service runs (functions/upload-service/server.ts). `header` reads a lower-case name.
 */
export async function callerOf(header: (name: string) => string | undefined): Promise<Caller | undefined> {
  // `x-api-key` only when no Authorization header came: API Gateway caches answers by Authorization, so a
  // fallback beside one would let the next request with that header ride on this key. Without one, the
  // request can only be on an uncached row that takes `x-api-key` (row.keyHeader: the SDK's beta.users).
  const authorization = header("authorization");
  const key = authorization !== undefined ? bearerKey(authorization) : plainKey(header("x-api-key"));
  if (!key) return undefined;
  const caller = await resolveCaller(key);
  if (!caller) logger.info("api key refused");
  return caller;
}

/** arn:aws:execute-api:region:account:api/stage/METHOD/path → arn:aws:execute-api:region:account:api/stage/* */
export function wholeApi(methodArn: string): string {
  const [api, stage] = methodArn.split("/");
  return `${api}/${stage}/*`;
}
