import type { EmbeddedApi } from "../../support/api.js";

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** JSON requests to the embedded API with one key. */
export const withKey =
  (api: EmbeddedApi["api"], key: () => string) =>
  async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key()}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text && (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text, headers: response.headers };
  };
