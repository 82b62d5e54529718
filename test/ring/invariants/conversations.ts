import { expect } from "vitest";
import { filesClient } from "../../support/files-client.js";
import { fulfilled, invariant } from "../invariant.js";

const WRITERS = 12;

invariant({
  name: `conversations: ${WRITERS} parallel appends to one conversation each keep their whole turn or nothing (409), never interleaved`,
  writers: WRITERS,
  async setup({ api, tenant }) {
    const client = filesClient(api, tenant);
    const started = await client.request("POST", "/v1/conversations", { json: { model: "mistral-small-latest", inputs: "start" } });
    return { client, id: started.body.conversation_id as string };
  },
  write: ({ client, id }, i) => client.request("POST", `/v1/conversations/${id}`, { json: { inputs: `writer-${i + 1}` } }),
  async check({ client, id }, outcomes) {
    const replies = fulfilled(outcomes);
    for (const reply of replies) expect([200, 409]).toContain(reply.status);
    const kept = replies.filter((r) => r.status === 200);
    expect(kept.length).toBeGreaterThan(0);
    const entries = (await client.request("GET", `/v1/conversations/${id}/history`)).body.entries as { type: string; content: string; id: string }[];
    // The first turn, then each kept turn's input right before its answer, and nothing of a refused one.
    expect(entries).toHaveLength(2 + 2 * kept.length);
    for (let at = 2; at < entries.length; at += 2) {
      expect(entries[at]!.type).toBe("message.input");
      expect(entries[at + 1]).toMatchObject({ type: "message.output", content: expect.stringContaining(`«${entries[at]!.content}»`) });
    }
    const keptIds = new Set(kept.flatMap((r) => r.body.outputs.map((o: { id: string }) => o.id)));
    expect(entries.filter((e) => e.type === "message.output").slice(1).every((e) => keptIds.has(e.id))).toBe(true);
  },
});
