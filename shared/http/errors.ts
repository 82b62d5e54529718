import * as z from "zod";
import { ApiError, asApiError, Unprocessable, type ErrorFamily } from "../domain/errors.js";

export interface WireError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function errorBody(status: number, type: string, message: string, code: string | null, param: string | null = null) {
  return { object: "error", message, type, param, code };
}

/**
 * The three envelopes, one per route family (the row's `errors`):
 * - platform: `{object:"error",message,type,param,code}`; 422 is FastAPI's `{detail:[{loc,msg,type}]}`.
 * - workflow: `{detail,code:"WF_xxxx"}`; 422 keeps the list form the SDK parses, with the code beside it;
 *   a 5xx says only "An error occurred".
 * - observability: `{detail:{message,error_code}}`, which the SDK parses on 400/404/408/409/422.
 */
const renderers: Record<ErrorFamily, (error: ApiError) => unknown> = {
  platform: (error) => (error instanceof Unprocessable ? { detail: error.detail } : { ...errorBody(error.status, error.type, error.message, error.code, error.param), ...error.extra }),
  workflow: (error) => {
    const code = error.familyCodes?.workflow ?? workflowCode(error.status);
    if (error instanceof Unprocessable) return { detail: error.detail, code, ...error.extra };
    return { detail: error.status >= 500 ? "An error occurred" : error.message, code, ...error.extra };
  },
  observability: (error) => ({
    detail: { message: error.status >= 500 ? "An error occurred" : error.message, error_code: error.familyCodes?.observability ?? observabilityCode(error.status), ...error.extra },
  }),
};

/** Workflow codes by status where the error names none (reference/workflows.md §1.6). */
function workflowCode(status: number): string {
  if (status === 404) return "WF_1100";
  if (status === 409) return "WF_1102";
  if (status === 504) return "WF_1103";
  return status >= 500 ? "WF_1000" : "WF_1001";
}

/** Observability codes by status where the error names none (the SDK's ObservabilityErrorCode). */
function observabilityCode(status: number): string {
  if (status === 401) return "AUTH_UNAUTHORIZED";
  if (status === 403) return "AUTH_FORBIDDEN";
  if (status >= 500) return "UNKNOWN_ERROR";
  if (status === 422 || status === 400) return "VALIDATION_ERROR";
  return "UNKNOWN_ERROR";
}

/** Renders anything a handler throws in the family's envelope; internals never leave through a 5xx. */
export function renderError(error: unknown, family: ErrorFamily): WireError {
  const known = asApiError(error);
  return { status: known.status, body: renderers[family](known), ...(known.headers ? { headers: known.headers } : {}) };
}

/** FastAPI's list of validation issues, the `detail` of a 422 in every family but observability. */
export const ValidationIssues = z.array(z.strictObject({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })).min(1);

/**
 * Each family's error body as a schema, for an answer of this status (422s keep FastAPI's list form where the
 * SDK parses it): what the OpenAPI document publishes and what the contract and fuzz rings check answers against.
 */
export const errorEnvelopes = {
  platform: z.looseObject({ object: z.literal("error"), message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
  platformValidation: z.strictObject({ detail: ValidationIssues }),
  workflow: z.looseObject({ detail: z.string(), code: z.string().regex(/^WF_\d{4}$/) }),
  // A reset to an event that is not a reset point adds the ones that are (reference/workflows.md §1.6).
  workflowValidation: z.strictObject({ detail: ValidationIssues, code: z.string().regex(/^WF_\d{4}$/), valid_reset_events: z.array(z.number().int()).optional() }),
  observability: z.strictObject({ detail: z.strictObject({ message: z.string(), error_code: z.string() }) }),
};

export const errorEnvelope = (family: ErrorFamily, status: number): z.ZodType => {
  if (family === "observability") return errorEnvelopes.observability;
  if (family === "workflow") return status === 422 ? errorEnvelopes.workflowValidation : errorEnvelopes.workflow;
  return status === 422 ? errorEnvelopes.platformValidation : errorEnvelopes.platform;
};
