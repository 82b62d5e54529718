/**
 * Under `npm start`, no connector reaches the stack's own services (DynamoDB Local, s3rver, the local Step
 * Functions and Scheduler, the API server itself), whatever its protocol and however the address is spelled,
 * while a tool server on another loopback port still works; and OUTBOUND_ALLOW_LOOPBACK=false is honoured.
 * The targets come from the stack's own environment (local-stack.json), so a backend added later is covered.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STACK_FILE } from "../../../infra/local/lock.js";
import { ALLOW_LOOPBACK_ENV } from "../../../shared/net/outbound.js";
import { DENY_TARGETS_ENV, parseTargets, targetOf } from "../../../shared/net/stack-targets.js";
import { aConnectorBody, connectorsClient } from "../../support/connectors-client.js";
import { startNpmStart, useNpmStartDirs, type StartedProcess } from "../../support/local-process.js";
import { startMcpServer, type TestMcpServer } from "../../support/mcp-server.js";

const dirs = useNpmStartDirs("platform-stack-ports-");
const KEY = "test-stack-ports-key-0123456789abcdef";

let mcp: TestMcpServer;
beforeAll(async () => {
  mcp = await startMcpServer();
});
afterAll(() => mcp.close());

const stackEnv = (dataDir: string): Record<string, string> => JSON.parse(readFileSync(join(dataDir, STACK_FILE), "utf8")).env;

describe("npm start with loopback allowed (the default)", () => {
  let stack: StartedProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    const dataDir = dirs.dataDir();
    stack = await startNpmStart({ dataDir, key: KEY, env: { [ALLOW_LOOPBACK_ENV]: "true" } });
    env = stackEnv(dataDir);
  });
  afterAll(() => stack?.kill());

  const ports = () => ({
    ...Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("AWS_ENDPOINT_URL_")).map(([name, url]) => [name, targetOf(url).port])),
    "the API server": Number(new URL(stack.url).port),
  });

  it("registers every backend and the API server itself", () => {
    const denied = parseTargets(env[DENY_TARGETS_ENV]).map((t) => t.port);
    expect(Object.keys(ports())).toEqual(expect.arrayContaining(["AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_SFN", "AWS_ENDPOINT_URL_SCHEDULER"]));
    for (const port of Object.values(ports())) expect(denied).toContain(port);
  });

  it("refuses HTTP and MCP connectors pointed at each of them, in several spellings, before connecting", async () => {
    const connectors = connectorsClient(stack, { key: KEY });
    for (const [service, port] of Object.entries(ports())) {
      for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "127.0.0.2"]) {
        for (const protocol of ["http", "mcp"] as const) {
          const connector = await connectors.created(aConnectorBody({ protocol, server: `http://${host}:${port}/` }));
          const reply = await connectors.tools(connector.id);
          expect(reply.status, `${protocol} connector at ${host}:${port} (${service})`).toBe(502);
          expect(reply.body.message, `${protocol} connector at ${host}:${port} (${service})`).toContain("one of this stack's own services");
        }
      }
    }
  });

  it("still reaches a tool server on another loopback port", async () => {
    const connectors = connectorsClient(stack, { key: KEY });
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    expect((await connectors.tools(connector.id)).status).toBe(200);
  });
});

describe("npm start with OUTBOUND_ALLOW_LOOPBACK=false", () => {
  let stack: StartedProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    const dataDir = dirs.dataDir();
    stack = await startNpmStart({ dataDir, key: KEY, env: { [ALLOW_LOOPBACK_ENV]: "false" } });
    env = stackEnv(dataDir);
  });
  afterAll(() => stack?.kill());

  it("keeps the operator's setting for its handlers and refuses every loopback tool server", async () => {
    expect(env[ALLOW_LOOPBACK_ENV]).toBe("false");
    const connectors = connectorsClient(stack, { key: KEY });
    const connector = await connectors.created(aConnectorBody({ server: mcp.url }));
    const reply = await connectors.tools(connector.id);
    expect(reply.status).toBe(502);
    expect(reply.body.message).toContain("it is a loopback address");
  });
});
