/** A JSON object as upstreams send it. */
export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function withoutNulls(value: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== null && entry !== undefined));
}

export function entriesOfType<T>(value: unknown, type: "boolean" | "number"): Record<string, T> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => typeof entry === type)) as Record<string, T>;
}

export function truncate(text: string, max = 1000): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function displayUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString().replace(/\/+$/, "");
  } catch {
    return "the configured base URL";
  }
}

/** A response header's value (a repeated header comes as a list: its first), from undici's answer or a refused WebSocket handshake. */
export function headerOf(response: { headers: Record<string, string | string[] | undefined> }, name: string): string | null {
  const value = response.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
