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
