import type { RunningApi } from "../../infra/local/server.js";
import { filesClient, type ApiReply } from "./files-client.js";
import type { TestTenant } from "./tenant.js";
import { aVoiceBody } from "./wav.js";

/** `/v1/audio/voices` of one running server as one tenant sees it, over plain HTTP. */
export function voicesClient(api: Pick<RunningApi, "url">, tenant: Pick<TestTenant, "key">) {
  const { request } = filesClient(api, tenant);
  const create = (body: unknown = aVoiceBody()) => request("POST", "/v1/audio/voices", { json: body });
  return {
    request,
    list: (query: Record<string, string | number> = {}) => request("GET", "/v1/audio/voices", { query }),
    create,
    /** Creates and returns the voice, failing the test on anything but a 200. */
    created: async (body: unknown = aVoiceBody()): Promise<any> => {
      const reply: ApiReply = await create(body);
      if (reply.status !== 200) throw new Error(`create voice answered ${reply.status}: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    get: (id: string) => request("GET", `/v1/audio/voices/${encodeURIComponent(id)}`),
    update: (id: string, body: unknown) => request("PATCH", `/v1/audio/voices/${encodeURIComponent(id)}`, { json: body }),
    remove: (id: string) => request("DELETE", `/v1/audio/voices/${encodeURIComponent(id)}`),
    /** The sample route's own answer (a redirect), not followed. */
    sample: (id: string) => request("GET", `/v1/audio/voices/${encodeURIComponent(id)}/sample`),
    /** The sample's bytes and content type as the SDK gets them: `Accept: audio/wav`, redirects followed (fetch drops the key on the hop to S3). */
    sampleBytes: async (id: string): Promise<{ status: number; contentType: string | null; bytes: Buffer }> => {
      const response = await fetch(`${api.url}/v1/audio/voices/${encodeURIComponent(id)}/sample`, { headers: { authorization: `Bearer ${tenant.key}`, accept: "audio/wav" } });
      return { status: response.status, contentType: response.headers.get("content-type"), bytes: Buffer.from(await response.arrayBuffer()) };
    },
  };
}
