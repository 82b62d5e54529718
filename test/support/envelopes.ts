/**
 * What every answer of a route keeps, as checks that return the problem instead of throwing: the contract
 * test expects none, the fuzz ring reports the first with the request that caused it.
 */
import { join } from "node:path";
import * as z from "zod";
import { handlerModule, type RouteRow } from "../../functions/routes.js";
import { ROOT_DIR } from "../../infra/local/stack.js";
import { errorEnvelope, ValidationIssues } from "../../shared/http/errors.js";
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

/** Why an error answer is not what its row documents (a request id and the family's envelope), or undefined. */
export function envelopeProblem(row: RouteRow, answer: Answer): string | undefined {
  if (!answer.requestId) return `${answer.status} without x-request-id`;
  // Rows that answer a browser with pages (the OAuth consent flow) refuse with a page too, or with their family's envelope.
  if (row.doc?.media === "text/html" && typeof answer.body === "string" && answer.body.startsWith("<!doctype html>")) return undefined;
  const parsed = errorEnvelope(row.errors, answer.status).safeParse(answer.body);
  return parsed.success ? undefined : `${answer.status} outside the ${row.errors} envelope: ${JSON.stringify(answer.body).slice(0, 500)}`;
}

/** A 422 the declared schemas gave (issues located in the path, query or body), as opposed to a route's semantic refusal. */
export const isSchemaRefusal = (answer: Answer): boolean =>
  answer.status === 422 && ValidationIssues.safeParse(answer.body?.detail).success;
