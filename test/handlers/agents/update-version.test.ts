import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/agents/update-version.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { agentCalls, agentHeadItem, agentVersionItem, anAgentHead, anAgentVersion, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const head = anAgentHead({ workspace: caller.workspace, version: 3, latestVersion: 3, description: "v3" });
const first = anAgentVersion(head, 1, { description: "v1", model: "codestral-latest" });

beforeEach(() => {
  serveAgentsTable(dynamo, [agentHeadItem(head), agentVersionItem(caller.workspace, first)]);
  // The update answers the head as written (ReturnValues ALL_NEW).
  dynamo.on(UpdateCommand).callsFake((input: UpdateCommandInput) => ({
    Attributes: { ...agentHeadItem(head), ...first, version: input.ExpressionAttributeValues![":version"], latestVersion: 3, createdAt: head.createdAt, updatedAt: input.ExpressionAttributeValues![":updatedAt"] },
  }));
});

const switchTo = (version: string | undefined, who = caller) =>
  anEvent({ method: "PATCH", path: `/v1/agents/${head.id}/version`, pathParameters: { agent_id: head.id }, query: version === undefined ? {} : { version }, caller: who });

describe("PATCH /v1/agents/{agent_id}/version", () => {
  it("makes the version current and answers the agent at that version", async () => {
    const response = await invoke(handler, switchTo("1"));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: head.id, version: 1, versions: [1, 2, 3], description: "v1", model: "codestral-latest" });
  });

  it("copies the version's fields onto the head in one conditional update", async () => {
    await invoke(handler, switchTo("1"));

    const [update] = agentCalls(dynamo, UpdateCommand);
    expect(update).toMatchObject({
      Key: { pk: `WS#${caller.workspace}`, sk: `AGENT#${head.id}` },
      ConditionExpression: "attribute_exists(sk) AND #latest >= :version",
      ReturnValues: "ALL_NEW",
    });
    expect(update!.ExpressionAttributeValues).toMatchObject({ ":version": 1 });
    expect(Object.values(update!.ExpressionAttributeValues)).toEqual(expect.arrayContaining(["v1", "codestral-latest"]));
  });

  it("answers 404 for a version that does not exist, without writing", async () => {
    for (const version of ["4", "2"]) {
      const response = await invoke(handler, switchTo(version));
      expect(response.statusCode, version).toBe(404);
      expect(response.json).toMatchObject({ code: "agent_version_not_found" });
    }
    expect(agentCalls(dynamo, UpdateCommand)).toHaveLength(0);
  });

  it("answers 404 when the agent was deleted between the read and the update", async () => {
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: "gone", $metadata: {} }));
    expect((await invoke(handler, switchTo("1"))).statusCode).toBe(404);
  });

  it("answers 422 without a version or with one that is not a positive integer, and 404 in another workspace", async () => {
    for (const version of [undefined, "one", "0", "1.5"]) {
      const response = await invoke(handler, switchTo(version));
      expect(response.statusCode, String(version)).toBe(422);
      expect(response.json.detail[0].loc).toEqual(["query", "version"]);
    }
    expect((await invoke(handler, switchTo("1", aCaller()))).statusCode).toBe(404);
  });
});
