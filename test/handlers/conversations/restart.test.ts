import { afterEach, describe, expect, it, vi } from "vitest";
import { handler as restart } from "../../../functions/conversations/restart.js";
import { handler as start } from "../../../functions/conversations/start.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invokeStream } from "../../support/builders.js";
import { catalogItems } from "../../support/agents-table.js";
import { serveTables } from "../../support/fake-table.js";
import { conversationItems } from "../../support/conversations.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

afterEach(() => vi.restoreAllMocks());

const restartEvent = (id: string, body: Record<string, unknown>, who = caller) => aJsonEvent(body, { path: `/v1/conversations/${id}/restart`, pathParameters: { conversation_id: id }, caller: who });

describe("POST /v1/conversations/{conversation_id}/restart", () => {
  it("branches: a new conversation with the entries up to the one named, then the new inputs; the original stays", async () => {
    const held = tables();
    const original = await invokeStream(start, aJsonEvent({ model: "mistral-small-latest", inputs: "First" }, { path: "/v1/conversations", caller }));
    const [input] = conversationItems(held).entries;

    const response = await invokeStream(restart, restartEvent(original.json.conversation_id, { from_entry_id: input!.id, inputs: "Second" }));

    expect(response.metadata?.statusCode).toBe(200);
    const branch = response.json.conversation_id;
    expect(branch).not.toBe(original.json.conversation_id);
    expect(response.json.outputs[0].content).toContain("«Second»");
    const stored = conversationItems(held);
    expect(stored.heads.map((h) => [h.id, h.entryCount]).toSorted()).toEqual([[original.json.conversation_id, 2], [branch, 3]].toSorted());
    const branchEntries = held.items("conversations").filter((i) => String(i.pk).endsWith(branch)).map((i) => JSON.parse(String(i.entry)));
    expect(branchEntries.map((e) => [e.type, e.content])).toEqual([
      ["message.input", "First"],
      ["message.input", "Second"],
      ["message.output", expect.stringContaining("«Second»")],
    ]);
  });

  it("answers 422 for an entry the conversation does not hold", async () => {
    tables();
    const original = await invokeStream(start, aJsonEvent({ model: "mistral-small-latest", inputs: "First" }, { path: "/v1/conversations", caller }));

    const response = await invokeStream(restart, restartEvent(original.json.conversation_id, { from_entry_id: "msg_nope", inputs: "Second" }));

    expect(response.metadata?.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "from_entry_id"]);
  });

  it("answers 404 for another workspace's conversation", async () => {
    const held = tables();
    const original = await invokeStream(start, aJsonEvent({ model: "mistral-small-latest", inputs: "First" }, { path: "/v1/conversations", caller }));
    const [input] = conversationItems(held).entries;

    const response = await invokeStream(restart, restartEvent(original.json.conversation_id, { from_entry_id: input!.id, inputs: "Second" }, aCaller()));

    expect(response.metadata?.statusCode).toBe(404);
  });
});

function tables() {
  return serveTables(dynamo, { models: catalogItems() }, { writes: true });
}
