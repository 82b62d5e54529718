import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handler as callTool } from "../../../functions/connectors/call-tool.js";
import { handler as listTools } from "../../../functions/connectors/list-tools.js";
import { outboundFetch, type Resolve } from "../../../shared/net/outbound.js";
import { useConnectorFetch } from "../../../shared/net/tools.js";
import { seal } from "../../../shared/store/connectors/secrets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, anEvent, invoke } from "../../support/builders.js";
import { aConnectionItem, aConnectorItems, aConnectorRecord } from "../../support/connector-items.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";

const dynamo = mockDynamo();
const caller = aCaller();
let tables: FakeTables;
let mcp: TestMcpServer;
beforeAll(async () => {
  mcp = await startMcpServer();
});
afterAll(() => mcp.close());
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
afterEach(() => useConnectorFetch(undefined));

const stored = (overrides: Parameters<typeof aConnectorRecord>[1] = {}) => {
  const record = aConnectorRecord(caller, { server: mcp.url, ...overrides });
  tables.put("connectors", ...aConnectorItems(record));
  return record;
};
const listing = (ref: string, query: Record<string, string> = {}) =>
  anEvent({ path: `/v1/connectors/${ref}/tools`, resource: "/v1/connectors/{connector_id_or_name}/tools", pathParameters: { connector_id_or_name: ref }, query, caller });
const calling = (ref: string, tool: string, args: Record<string, unknown>, query: Record<string, string> = {}) =>
  aJsonEvent(
    { arguments: args },
    { path: `/v1/connectors/${ref}/tools/${tool}/call`, resource: "/v1/connectors/{connector_id_or_name}/tools/{tool_name}/call", pathParameters: { connector_id_or_name: ref, tool_name: tool }, query, caller },
  );

describe("GET /v1/connectors/{connector_id_or_name}/tools", () => {
  it("lists the MCP server's tools", async () => {
    const record = stored();
    const response = await invoke(listTools, listing(record.id, { page_size: "2" }));
    expect(response.statusCode).toBe(200);
    expect(response.json.map((t: any) => t.name)).toEqual(["echo", "add"]);
  });

  it("refuses a server whose name resolves to the metadata address: 502, no connection made", async () => {
    const record = stored({ server: "http://metadata.test/mcp" });
    const asked: string[] = [];
    const resolve: Resolve = async (host) => {
      asked.push(host);
      // Loopback first: a broken guard would connect there, never inward.
      return [
        { address: "127.0.0.1", family: 4 },
        { address: "169.254.169.254", family: 4 },
      ];
    };
    useConnectorFetch(outboundFetch({ resolve }));

    const response = await invoke(listTools, listing(record.id));

    expect(response.statusCode).toBe(502);
    expect(response.json).toMatchObject({ type: "server_error", code: "upstream_error", message: expect.stringContaining("169.254.169.254") });
    expect(asked).toContain("metadata.test");
  });
});

describe("POST /v1/connectors/{connector_id_or_name}/tools/{tool_name}/call", () => {
  it("calls the tool with the connector's headers and the caller's default credentials", async () => {
    const record = aConnectorRecord(caller, { server: mcp.url, authMethods: ["bearer"] });
    tables.put("connectors", ...aConnectorItems(record));
    const credentials = { connectorId: record.id, kind: "credentials" as const, scope: "user" as const, consumer: caller.principal, name: "mine", authType: "bearer" as const, isDefault: true };
    const secret = await seal(JSON.stringify({ bearerToken: "user-token" }), { organization: caller.organization, connector: record.id, scope: "user", consumer: caller.principal, credentials: "mine" });
    tables.put("connectors", aConnectionItem({ ...credentials, secret }));

    const response = await invoke(callTool, calling(record.name, "whoami", {}));

    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ content: [{ type: "text", text: "Bearer user-token" }], metadata: { mcp_meta: { isError: false, structuredContent: null, _meta: null } } });
  });

  it("answers 502 when the server's answer is larger than the limit", async () => {
    const record = stored();
    process.env.CONNECTOR_MAX_RESPONSE_BYTES = "2000";
    useConnectorFetch(undefined);
    try {
      const response = await invoke(callTool, calling(record.id, "big", { bytes: 50_000 }));
      expect(response.statusCode).toBe(502);
      expect(response.json.message).toContain("larger than 2000 bytes");
    } finally {
      delete process.env.CONNECTOR_MAX_RESPONSE_BYTES;
      useConnectorFetch(undefined);
    }
  });

  it("answers 422 when arguments is not an object", async () => {
    const record = stored();
    const event = calling(record.id, "echo", {});
    event.body = JSON.stringify({ arguments: [1] });
    expect((await invoke(callTool, event)).statusCode).toBe(422);
  });
});
