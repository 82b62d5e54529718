import { describe, expect, it } from "vitest";
import { routes } from "../../../../functions/routes.js";
import { RESERVED_WORKFLOW_NAMES } from "../../../../shared/domain/workflows/reserved-names.js";

describe("the names a workflow cannot take", () => {
  it("are every literal segment the route table has beside /v1/workflows/{workflow_identifier}", () => {
    const segments = routes.map((row) => row.path.split("/")).filter((parts) => parts[2] === "workflows" && parts.length > 3).map((parts) => parts[3]!);
    const beside = [...new Set(segments.filter((segment) => !segment.startsWith("{")))];
    expect([...RESERVED_WORKFLOW_NAMES].toSorted()).toEqual(beside.toSorted());
  });
});
