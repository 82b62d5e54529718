import type { RunningApi } from "../../infra/local/server.js";
import type { ApiReply, Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** `/v2/prompts` or `/v2/skills` of one running server as one tenant sees it, over plain HTTP. */
export function registryClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">, collection: "prompts" | "skills" = "prompts") {
  async function request(method: string, path: string, options: { query?: Query; json?: unknown } = {}): Promise<ApiReply> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one));
    }
    const headers: Record<string, string> = { authorization: `Bearer ${tenant.key}` };
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const url = `${api.url}${path}${params.size ? `?${params}` : ""}`;
    const response = await fetch(url, { method, headers, body: options.json === undefined ? undefined : JSON.stringify(options.json) });
    const text = await response.text();
    const isJson = (response.headers.get("content-type") ?? "").includes("json") && text !== "";
    return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
  }

  const base = `/v2/${collection}`;
  const ok = <T = any>(reply: ApiReply<T>, what: string): T => {
    if (reply.status !== 200) throw new Error(`${what} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const create = (body: unknown) => request("POST", base, { json: body });
  const createVersion = (id: string, body: unknown) => request("POST", `${base}/${id}/versions`, { json: body });

  return {
    request,
    create,
    /** Creates and returns the entry, failing the test on anything but a 200. */
    created: async (body: Record<string, unknown>) => ok(await create(body), "create"),
    list: (query: Query = {}) => request("GET", base, { query }),
    get: (id: string, query: Query = {}) => request("GET", `${base}/${id}`, { query }),
    update: (id: string, body: unknown) => request("PATCH", `${base}/${id}`, { json: body }),
    remove: (id: string) => request("DELETE", `${base}/${id}`),
    versions: (id: string) => request("GET", `${base}/${id}/versions`),
    createVersion,
    versionCreated: async (id: string, body: unknown) => ok(await createVersion(id, body), "create version") as { version: number; deduplicated: boolean },
    getVersion: (id: string, version: number | string, query: Query = {}) => request("GET", `${base}/${id}/versions/${version}`, { query }),
    updateVersion: (id: string, version: number | string, body: unknown) => request("PATCH", `${base}/${id}/versions/${version}`, { json: body }),
  };
}

export type RegistryClient = ReturnType<typeof registryClient>;

/** A prompt body with a unique name, overridable field by field. */
export const aPromptBody = (overrides: Record<string, unknown> = {}) => ({
  name: `prompt-${Math.random().toString(36).slice(2, 10)}`,
  definition: { content: "Hello {{name}}, welcome to {{place}}." },
  ...overrides,
});

export const aSkillBody = (overrides: Record<string, unknown> = {}) => ({
  name: `skill-${Math.random().toString(36).slice(2, 10)}`,
  definition: { description: "Formats release notes", body: "# Release notes\nUse the template.", assets: { "template.md": { textContent: "## {{version}}" } } },
  ...overrides,
});
