/**
 * The deployment principals CLI (`npm run principals`, scripts/deployments/principals-cli.ts) against the
 * embedded API: add, remove and unharden through the extension route, as a workspace admin's key.
 */
import { describe, expect, it } from "vitest";
import { PRINCIPALS_USAGE, principalsCli } from "../../../scripts/deployments/principals-cli.js";
import { useEmbeddedApi } from "../../support/api.js";
import { workflowsClient } from "../../support/workflow-builders.js";

const { api, tenant } = useEmbeddedApi();
const http = workflowsClient(api, tenant);

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await principalsCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), target: (given) => ({ url: given.url ?? api.url, key: given.key ?? tenant.key }) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("POST /v1/workflows/deployments/{name}/principals through the CLI", () => {
  it("adds and removes principals, unhardens, and explains itself with --help", async () => {
    expect((await http.request("POST", "/v1/workflows/deployments", { json: { name: "cli-pool", spec: { github_url: "https://x" } } })).status).toBe(202);

    const added = await cli("add", "--deployment", "cli-pool", "--principal", `${tenant.caller.keyId},sa-1`);
    expect(added).toMatchObject({ code: 0, out: expect.stringContaining("hardened, 2 principal(s)") });
    expect((await http.request("GET", "/v1/workflows/deployments/cli-pool")).body.is_hardened).toBe(true);

    expect(await cli("remove", "--deployment", "cli-pool", "--principal", "sa-1")).toMatchObject({ code: 0, out: expect.stringContaining("1 principal(s)") });
    expect(await cli("unharden", "--deployment", "cli-pool")).toMatchObject({ code: 0, out: expect.stringContaining("not hardened") });
    expect((await http.request("GET", "/v1/workflows/deployments/cli-pool")).body.is_hardened).toBe(false);

    expect(await cli("--help")).toEqual({ code: 0, out: PRINCIPALS_USAGE, err: "" });
    expect((await cli("add", "--deployment", "cli-pool")).code).toBe(2);
    expect(await cli("unharden", "--deployment", "nowhere")).toMatchObject({ code: 1, err: expect.stringMatching(/^404/) });
  });
});
