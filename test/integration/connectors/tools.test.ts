import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";

const { api, tenant } = useEmbeddedApi();
const connectors = connectorsClient(api, tenant);

let mcp: TestMcpServer;
beforeAll(async () => {
  mcp = await startMcpServer();
});
afterAll(() => mcp.close());

describe("GET /v1/connectors/{connector_id_or_name}/tools", () => {
  it("lists the tools of the real MCP server, by id and by name", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));

    for (const ref of [connector.id, connector.name]) {
      const reply = await connectors.tools(ref);
      expect(reply.status).toBe(200);
      expect(reply.body.map((t: any) => t.name)).toEqual(["echo", "add", "whoami", "fails", "slow", "big"]);
      expect(reply.body[0]).toMatchObject({ name: "echo", description: "Echoes its text", inputSchema: { type: "object", properties: { text: { type: "string" } } } });
    }
  });

  it("pages the tool list with page and page_size", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const reply = await connectors.tools(connector.id, { page: 2, page_size: 2 });
    expect(reply.body.map((t: any) => t.name)).toEqual(["whoami", "fails"]);
  });

  it("answers 502 when the server cannot be reached", async () => {
    const connector = await connectors.created(aConnectorBody({ server: "http://127.0.0.1:9/mcp" }));
    const reply = await connectors.tools(connector.id);
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({ object: "error", type: "server_error", code: "upstream_error" });
  });
});

describe("POST /v1/connectors/{connector_id_or_name}/tools/{tool_name}/call", () => {
  it("calls the tool on the real MCP server and answers its content, with the MCP fields under mcp_meta", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));

    const reply = await connectors.call(connector.id, "echo", { text: "hello" });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({
      content: [{ type: "text", text: "hello" }],
      metadata: { mcp_meta: { isError: false, structuredContent: { echoed: "hello" }, _meta: { "test/echo": true } } },
    });
  });

  it("reports a tool's own error as isError, not as a failed request", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const reply = await connectors.call(connector.name, "fails");
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.mcp_meta.isError).toBe(true);
  });

  it("sends the connector's headers to the server and never returns them", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url, headers: { "x-team": "blue" }, global_headers: { authorization: { value: "Bearer server-secret" } } }));
    expect(JSON.stringify(connector)).not.toContain("server-secret");

    const reply = await connectors.call(connector.id, "whoami");

    expect(reply.body.content[0].text).toBe("Bearer server-secret");
    expect(JSON.stringify((await connectors.get(connector.id)).body)).not.toContain("server-secret");
  });

  it("answers 502 for a tool the server does not have", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const reply = await connectors.call(connector.id, "nope");
    expect([200, 502]).toContain(reply.status);
    if (reply.status === 200) expect(reply.body.metadata.mcp_meta.isError).toBe(true);
  });
});
