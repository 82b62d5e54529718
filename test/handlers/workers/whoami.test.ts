import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/workers/whoami.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";

mockDynamo({ resolves: {} });

describe("GET /v1/workflows/workers/whoami", () => {
  it("answers who the key is, in Mistral's whoami shape, with no Temporal address", async () => {
    const caller = aCaller({ principalType: "service_account" });

    const response = await invoke(handler, anEvent({ method: "GET", path: "/v1/workflows/workers/whoami", caller }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      workspace_id: caller.workspace,
      organization_id: caller.organization,
      principal_id: caller.principal,
      principal_type: "service_account",
      scheduler_url: null,
      namespace: caller.workspace,
      tls: true,
    });
  });

  it("refuses a key without workflows:write with 403 in the workflow envelope", async () => {
    const caller = aCaller({ roles: ["workflow_executor"] });

    const response = await invoke(handler, anEvent({ method: "GET", path: "/v1/workflows/workers/whoami", caller }));

    expect(response.statusCode).toBe(403);
    expect(response.json.code).toMatch(/^WF_/);
  });
});
