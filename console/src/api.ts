/**
 * The console's one way to the API: the documented routes, with the signed-in key as the bearer header and
 * nothing else (no cookie). Errors carry the API's status and message, so a page can show them as they are.
 */
import { signedInKey } from "./session.js";

/** The API's base URL: the console is served at `<base>/console`, under a stage or base path if there is one. */
export const apiBase = (): string => `${location.origin}${location.pathname.replace(/\/console(\/.*)?$/, "")}`;

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | readonly string[]>;

export function urlOf(path: string, query: Query = {}): string {
  const url = new URL(`${apiBase()}${path}`);
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  return url.toString();
}

const authorization = (key = signedInKey()): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

/** The message a failed answer carries: `detail` (a string or the validation list), `message`, or the status. */
export function messageOf(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const { detail, message } = body as { detail?: unknown; message?: unknown };
    const code = (body as { code?: unknown }).code;
    if (typeof message === "string") return typeof code === "string" ? `${message} (${code})` : message;
    if (typeof detail === "string") return typeof code === "string" ? `${detail} (${code})` : detail;
    // The observability engine's `{detail: {message, error_code}}`.
    if (detail && typeof detail === "object" && typeof (detail as { message?: unknown }).message === "string") return (detail as { message: string }).message;
    if (Array.isArray(detail)) return detail.map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join(".")}: ${d.msg ?? ""}`).join("; ");
  }
  return `HTTP ${status}`;
}

async function parse(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface CallOptions {
  query?: Query;
  body?: unknown;
  /** Another key than the signed-in one (the sign-in form checks a key before keeping it). */
  key?: string;
  signal?: AbortSignal;
}

/** One call; a non-2xx answer throws ApiFailure. */
export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const isForm = options.body instanceof FormData;
  const response = await fetch(urlOf(path, options.query), {
    method,
    headers: { ...authorization(options.key), ...(options.body !== undefined && !isForm ? { "content-type": "application/json" } : {}) },
    body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
    signal: options.signal,
  });
  const body = await parse(response);
  if (!response.ok) throw new ApiFailure(response.status, messageOf(response.status, body), body);
  return body as T;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => call<T>("GET", path, { query, signal }),
  post: <T>(path: string, body?: unknown, query?: Query) => call<T>("POST", path, { body, query }),
  patch: <T>(path: string, body?: unknown) => call<T>("PATCH", path, { body }),
  put: <T>(path: string, body?: unknown) => call<T>("PUT", path, { body }),
  delete: <T>(path: string, query?: Query, body?: unknown) => call<T>("DELETE", path, { query, body }),
};

/** A response's headers and streamed server-sent events, for the playground. */
export async function streamEvents(path: string, body: unknown, onData: (data: unknown) => void, signal?: AbortSignal): Promise<Headers> {
  const response = await fetch(urlOf(path), {
    method: "POST",
    headers: { ...authorization(), "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    const parsed = await parse(response);
    throw new ApiFailure(response.status, messageOf(response.status, parsed), parsed);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (!data || data === "[DONE]") continue;
      onData(JSON.parse(data));
    }
  }
  return response.headers;
}

/** A download of a route that answers with a redirect or the bytes, saved under the name given. */
export async function download(path: string, filename: string): Promise<void> {
  const response = await fetch(urlOf(path), { headers: authorization() });
  if (!response.ok) {
    const parsed = await parse(response);
    throw new ApiFailure(response.status, messageOf(response.status, parsed), parsed);
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** What a failure says, for a page to show: the API's message (ApiFailure) or the error's. */
export const failureText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
