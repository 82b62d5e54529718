/**
 * What every answer of a route keeps, as checks that return the problem instead of throwing: the contract
 * test expects none, the fuzz ring reports the first with the request that caused it.
 */
import { join } from "node:path";
import * as z from "zod";
import { handlerModule, type RouteRow } from "../../functions/routes.js";
import { ROOT_DIR } from "../../infra/local/stack.js";
import type { ErrorFamily } from "../../shared/domain/errors.js";
import type { RouteHandler, RouteSpec } from "../../shared/http/route.js";

export interface Answer {
  status: number;
  requestId: string | null;
  body: any;
}

export type DeclaredSpec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

/** What the row's handler declared (params, query, body, parser, response). */
export const specOf = async (row: RouteRow): Promise<DeclaredSpec> =>
  ((await import(join(ROOT_DIR, handlerModule(row.handler)))) as { handler: RouteHandler }).handler.spec ?? {};

export const ValidationIssues = z.array(z.strictObject({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })).min(1);

/** Each family's envelope, for an answer of this status (422s keep FastAPI's list form where the SDK parses it). */
export const envelope = (family: ErrorFamily, status: number): z.ZodType => {
  if (family === "observability") return z.strictObject({ detail: z.strictObject({ message: z.string(), error_code: z.string() }) });
  if (family === "workflow") {
    const code = z.string().regex(/^WF_\d{4}$/);
    // A reset to an event that is not a reset point adds the ones that are (reference/workflows.md §1.6).
    return status === 422 ? z.strictObject({ detail: ValidationIssues, code, valid_reset_events: z.array(z.number().int()).optional() }) : z.looseObject({ detail: z.string(), code });
  }
  return status === 422
    ? z.strictObject({ detail: ValidationIssues })
    : z.looseObject({ object: z.literal("error"), message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() });
};

/** Why an error answer is not what its row documents (a request id and the family's envelope), or undefined. */
export function envelopeProblem(row: RouteRow, answer: Answer): string | undefined {
  if (!answer.requestId) return `${answer.status} without x-request-id`;
  const parsed = envelope(row.errors, answer.status).safeParse(answer.body);
  return parsed.success ? undefined : `${answer.status} outside the ${row.errors} envelope: ${JSON.stringify(answer.body).slice(0, 500)}`;
}

/** A 422 the declared schemas gave (issues located in the path, query or body), as opposed to a route's semantic refusal. */
export const isSchemaRefusal = (answer: Answer): boolean =>
  answer.status === 422 && ValidationIssues.safeParse(answer.body?.detail).success;
