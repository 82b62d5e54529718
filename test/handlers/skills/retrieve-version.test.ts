import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/skills/retrieve-version.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { aServedEntry } from "../../support/registry-builders.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const retrieveVersion = (id: string, version: string, query: Record<string, string> = {}, who: ReturnType<typeof aCaller> | null = caller) =>
  anEvent({ path: `/v2/skills/${id}/versions/${version}`, resource: "/v2/skills/{skill_id}/versions/{version}", pathParameters: { skill_id: id, version }, query, caller: who });

function stored() {
  return aServedEntry(dynamo, caller, { kind: "skill", latestVersion: 2 }, [{ definition: { body: "one" } }]).head;
}

describe("GET /v2/skills/{skill_id}/versions/{version} (extension)", () => {
  it("answers 200 JSON with the Skill at that version, projected on request", async () => {
    const head = stored();

    const full = await invoke(handler, retrieveVersion(head.id, "1"));
    const projected = await invoke(handler, retrieveVersion(head.id, "1", { fields: "definition" }));

    expect(full.statusCode).toBe(200);
    expect(full.json).toMatchObject({ id: head.id, version: 1, latestVersion: 2, definition: { body: "one" } });
    expect(full.json).not.toHaveProperty("title");
    expect(projected.json).toStrictEqual({ definition: { body: "one" } });
  });

  it("answers 404 skill_version_not_found past the latest version", async () => {
    const head = stored();

    const response = await invoke(handler, retrieveVersion(head.id, "3"));

    expect(response.statusCode).toBe(404);
    expect(response.json.code).toBe("skill_version_not_found");
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, retrieveVersion("any", "1", {}, null))).statusCode).toBe(401);
  });
});
