import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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

  it("reports a tool the server does not have as the server does (an MCP tool error)", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const reply = await connectors.call(connector.id, "nope");
    expect(reply.status).toBe(200);
    expect(reply.body.metadata.mcp_meta.isError).toBe(true);
  });

  it("authenticates with the caller's default credentials, or the ones named", async () => {
    const guarded = await startMcpServer({ requireTokens: ["tok-a", "tok-b"] });
    try {
      const connector = await connectors.created(aConnectorBody({ server: guarded.url, auth_methods: [{ method_type: "bearer" }] }));
      expect((await connectors.call(connector.id, "whoami")).status).toBe(502);
      await connectors.createCredentials(connector.id, "user", { name: "a", credentials: { bearer_token: "tok-a" } });
      await connectors.createCredentials(connector.id, "user", { name: "b", credentials: { bearer_token: "tok-b" } });

      expect((await connectors.call(connector.id, "whoami")).body.content[0].text).toBe("Bearer tok-a");
      expect((await connectors.call(connector.id, "whoami", {}, { credentials_name: "b" })).body.content[0].text).toBe("Bearer tok-b");
      expect((await connectors.call(connector.id, "whoami", {}, { credentials_name: "c" })).status).toBe(404);
    } finally {
      await guarded.close();
    }
  });

  it("answers 504 when the server takes longer than the call may", async () => {
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    process.env.CONNECTOR_TOOL_TIMEOUT_MS = "300";
    try {
      const reply = await connectors.call(connector.id, "slow", { ms: 2000 });
      expect(reply.status).toBe(504);
      expect(reply.body).toMatchObject({ type: "server_error", code: "upstream_error" });
    } finally {
      delete process.env.CONNECTOR_TOOL_TIMEOUT_MS;
    }
  });
});

describe("HTTP connectors", () => {
  it("list and call tools at the declared endpoint: GET <server>/tools, POST <server>/tools/<name>", async () => {
    const seen: { method?: string; url?: string; body?: string; auth?: string }[] = [];
    const server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      seen.push({ method: req.method, url: req.url, body, auth: req.headers.authorization });
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && req.url === "/api/tools") return void res.end(JSON.stringify([{ name: "weather", description: "Weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }]));
      if (req.method === "POST" && req.url === "/api/tools/weather") return void res.end(JSON.stringify({ city: JSON.parse(body).arguments.city, celsius: 21 }));
      res.statusCode = 500;
      res.end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
      const connector = await connectors.created(aConnectorBody({ protocol: "http", server: url, global_headers: { authorization: { value: "Bearer h" } } }));

      const tools = await connectors.tools(connector.id);
      expect(tools.body).toEqual([{ name: "weather", description: "Weather", input_schema: expect.any(Object), inputSchema: { type: "object", properties: { city: { type: "string" } } } }]);
      const call = await connectors.call(connector.id, "weather", { city: "Paris" });
      expect(call.status).toBe(200);
      expect(call.body).toStrictEqual({ content: [{ type: "text", text: '{"city":"Paris","celsius":21}' }], metadata: { mcp_meta: null, structured_content: { city: "Paris", celsius: 21 } } });
      expect(seen.at(-1)).toMatchObject({ method: "POST", body: '{"arguments":{"city":"Paris"}}', auth: "Bearer h" });
      expect((await connectors.call(connector.id, "other")).status).toBe(502);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
