import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/users/my-organizations.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { serveTenancyTable } from "../../support/workspaces-table.js";

const dynamo = mockDynamo();
const caller = aCaller();
const organizations = (query: Record<string, string> = {}) => anEvent({ method: "GET", path: "/v1/users/me/organizations", query, caller });

describe("GET /v1/users/me/organizations", () => {
  it("answers the key's organization", async () => {
    serveTenancyTable(dynamo, [{ pk: `ORG#${caller.organization}`, sk: "#ORG", id: caller.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" }]);

    const response = await invoke(handler, organizations());

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({ organizations: [{ id: caller.organization, name: "Acme" }] });
  });

  it("answers none past the first with an offset", async () => {
    serveTenancyTable(dynamo, [{ pk: `ORG#${caller.organization}`, sk: "#ORG", id: caller.organization, name: "Acme", createdAt: "2025-01-01T00:00:00.000Z" }]);

    expect((await invoke(handler, organizations({ offset: "1" }))).json).toStrictEqual({ organizations: [] });
  });

  it("answers 422 for a limit of 0 or over 100", async () => {
    for (const limit of ["0", "101"]) expect((await invoke(handler, organizations({ limit }))).statusCode).toBe(422);
  });
});
