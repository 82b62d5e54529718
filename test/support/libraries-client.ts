import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type Query } from "./files-client.js";
import type { TestTenant } from "./tenant.js";

/** `/v1/libraries/...` of one running server as one key sees it, over plain HTTP. */
export function librariesClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const at = (id: string) => `/v1/libraries/${encodeURIComponent(id)}`;
  const create = (body: unknown) => request("POST", "/v1/libraries", { json: body });
  return {
    request,
    create,
    /** Creates and returns the library, failing the test on anything but a 201. */
    created: async (body: Record<string, unknown> = {}): Promise<any> => {
      const reply = await create({ name: "Handbook", ...body });
      if (reply.status !== 201) throw new Error(`create library answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    list: (query: Query = {}) => request("GET", "/v1/libraries", { query }),
    get: (id: string) => request("GET", at(id)),
    update: (id: string, body: unknown) => request("PATCH", at(id), { json: body }),
    replace: (id: string, body: unknown) => request("PUT", at(id), { json: body }),
    remove: (id: string) => request("DELETE", at(id)),
    accesses: (id: string) => request("GET", `${at(id)}/share`),
    share: (id: string, body: unknown) => request("PUT", `${at(id)}/share`, { json: body }),
    unshare: (id: string, body: unknown) => request("DELETE", `${at(id)}/share`, { json: body }),
    documents: documentsOf(request, at),
  };
}

/** `/v1/libraries/{id}/documents/...` through one key's request function. */
function documentsOf(request: ReturnType<typeof filesClient>["request"], at: (id: string) => string) {
  const docs = (library: string) => `${at(library)}/documents`;
  const doc = (library: string, id: string) => `${docs(library)}/${encodeURIComponent(id)}`;
  const upload = (library: string, bytes: Buffer, filename: string) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)]), filename);
    return request("POST", docs(library), { form });
  };
  return {
    upload,
    list: (library: string, query: Query = {}) => request("GET", docs(library), { query }),
    get: (library: string, id: string) => request("GET", doc(library, id)),
    update: (library: string, id: string, body: unknown) => request("PATCH", doc(library, id), { json: body }),
    replace: (library: string, id: string, body: unknown) => request("PUT", doc(library, id), { json: body }),
    remove: (library: string, id: string) => request("DELETE", doc(library, id)),
    status: (library: string, id: string) => request("GET", `${doc(library, id)}/status`),
    text: (library: string, id: string, query: Query = {}) => request("GET", `${doc(library, id)}/text_content`, { query }),
    url: (library: string, id: string) => request("GET", `${doc(library, id)}/signed-url`),
    textUrl: (library: string, id: string) => request("GET", `${doc(library, id)}/extracted-text-signed-url`),
    reprocess: (library: string, id: string) => request("POST", `${doc(library, id)}/reprocess`),
    /** Polls the document's status until processing is over (done, missing_content, error); answers the document. */
    async processed(library: string, id: string, deadlineMs = 60_000): Promise<any> {
      const until = Date.now() + deadlineMs;
      for (;;) {
        const reply = await request("GET", doc(library, id));
        if (!["todo", "in_progress"].includes(reply.body.process_status)) return reply.body;
        if (Date.now() > until) throw new Error(`document ${id} still ${reply.body.process_status} after ${deadlineMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}
