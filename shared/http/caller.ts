import type { APIGatewayProxyEvent } from "aws-lambda";
import { CALL_LIMITS, type CallLimitField } from "../domain/api-keys.js";
import type { Caller } from "../domain/caller.js";
import { Unauthorized } from "../domain/errors.js";

/** The key's numeric limits, each present only when the key has it (the model list travels joined). */
type Limit = Exclude<CallLimitField, "models">;
const LIMITS = CALL_LIMITS.filter((field): field is Limit => field !== "models");

/**
 * API Gateway REST passes the authorizer's context as flat string values, so the caller travels as
 * strings and is rebuilt here (see functions/auth/authorizer.ts for the other half).
 */
export type CallerContext = Record<Exclude<keyof Caller, Limit | "models">, string> & Partial<Record<Limit | "models", string>>;

export function toCallerContext(caller: Caller): CallerContext {
  return {
    organization: caller.organization,
    workspace: caller.workspace,
    principal: caller.principal,
    principalType: caller.principalType,
    roles: caller.roles.join(","),
    admin: String(caller.admin),
    keyId: caller.keyId,
    // Only keys with a limit carry it, so the context of every other key stays as it was.
    ...Object.fromEntries(LIMITS.filter((limit) => caller[limit] !== undefined).map((limit) => [limit, String(caller[limit])])),
    // Model ids hold no commas (shared/schemas/model.ts).
    ...(caller.models ? { models: caller.models.join(",") } : {}),
  };
}

export function callerFrom(event: APIGatewayProxyEvent): Caller {
  const context = event.requestContext.authorizer as Partial<CallerContext> | null | undefined;
  if (!context?.workspace || !context.organization || !context.principal || !context.keyId) throw new Unauthorized();
  return {
    organization: context.organization,
    workspace: context.workspace,
    principal: context.principal,
    principalType: context.principalType === "service_account" ? "service_account" : "user",
    roles: context.roles ? context.roles.split(",").filter(Boolean) : [],
    admin: context.admin === "true",
    keyId: context.keyId,
    ...Object.fromEntries(LIMITS.filter((limit) => context[limit]).map((limit) => [limit, Number(context[limit])])),
    ...(context.models ? { models: context.models.split(",") } : {}),
  };
}
