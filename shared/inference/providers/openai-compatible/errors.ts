import { UpstreamError } from "../../types.js";
import { isRecord, truncate } from "./json.js";

export function httpFailure(status: number, body: string, retryAfter: string | null): UpstreamError {
  const detail = upstreamMessage(body);
  if (status === 401 || status === 403) {
    return new UpstreamError(502, `The upstream refused our credentials (HTTP ${status}); its API key is missing or wrong in this deployment`, undefined, false);
  }
  if (status === 429) {
    return new UpstreamError(429, `The upstream is rate limiting requests${detail ? `: ${detail}` : ""}`, retryAfterSeconds(retryAfter));
  }
  if (status >= 400 && status < 500) return new UpstreamError(400, detail ?? `The upstream refused the request (HTTP ${status})`);
  return new UpstreamError(502, `The upstream failed (HTTP ${status})`);
}

export function malformed(what: string): UpstreamError {
  return new UpstreamError(502, `The upstream sent an unexpected answer: ${what}`);
}

/** The human message in an error body: `message`, `error.message`, `error`, `detail` (FastAPI's list too) or short plain text. */
export function upstreamMessage(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text && !text.startsWith("<") ? truncate(text) : undefined;
  }
  const message = messageIn(parsed);
  return message ? truncate(message) : undefined;
}

export function messageIn(value: unknown, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  if (typeof value === "string") return value.trim() || undefined;
  if (Array.isArray(value)) {
    const parts = value
      .map((item) => {
        if (isRecord(item) && typeof item.msg === "string") {
          return Array.isArray(item.loc) ? `${item.loc.join(".")}: ${item.msg}` : item.msg;
        }
        return messageIn(item, depth + 1);
      })
      .filter((part): part is string => !!part);
    return parts.length ? parts.join("; ") : undefined;
  }
  if (!isRecord(value)) return undefined;
  for (const key of ["message", "error", "detail", "msg"]) {
    const found = messageIn(value[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function retryAfterSeconds(header: string | null): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds) : undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; isRecord(current) && depth < 4; current = current.cause, depth++) {
    if (typeof current.code === "string") return current.code;
  }
  return undefined;
}
