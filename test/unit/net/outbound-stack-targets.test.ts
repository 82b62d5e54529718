/**
 * The stack's own services are never an outbound target, even where loopback is allowed
 * (shared/net/stack-targets.ts). The targets are generated from the run's embedded backends (the environment
 * infra/local/backends.ts hands the handlers), so every backend the stack starts is covered as it is added.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { OutboundError, outboundFetch } from "../../../shared/net/outbound.js";
import { DENY_TARGETS_ENV, formatTargets, parseTargets, stackTargetRefusal, targetOf } from "../../../shared/net/stack-targets.js";

const backendEnv = inject("backendEnv");
/** Every endpoint the stack hands its handlers (DynamoDB Local, s3rver, Step Functions, Scheduler, ...). */
const backendEndpoints = Object.entries(backendEnv).filter(([name]) => name.startsWith("AWS_ENDPOINT_URL_"));

describe("the run's backends", () => {
  it("registers every backend endpoint in the deny-list", () => {
    const denied = parseTargets(backendEnv[DENY_TARGETS_ENV]);
    expect(backendEndpoints.map(([name]) => name).sort()).toEqual(expect.arrayContaining(["AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_SFN", "AWS_ENDPOINT_URL_SCHEDULER"]));
    for (const [, endpoint] of backendEndpoints) expect(denied).toContainEqual(targetOf(endpoint));
  });

  describe.each(backendEndpoints)("%s", (_name, endpoint) => {
    const { port } = targetOf(endpoint);
    const guarded = outboundFetch({ allowLoopback: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }], maxRedirects: 0 });
    afterAll(() => guarded.close());

    it.each([`http://127.0.0.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`, `http://127.0.0.2:${port}/`, `http://[::1]:${port}/`, `http://localhost:${port}/`])(
      "refuses %s before connecting, loopback allowed",
      async (url) => {
        const error = await guarded(url).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(OutboundError);
        expect((error as OutboundError).kind).toBe("refused_address");
        expect((error as OutboundError).message).toContain("one of this stack's own services");
      },
    );
  });
});

describe("stackTargetRefusal", () => {
  const targets = parseTargets("127.0.0.1:8000,0.0.0.0:8080,[::1]:9000,203.0.113.9:7000");

  it.each([
    ["127.0.0.1", 8000],
    ["127.0.0.5", 8000],
    ["::ffff:127.0.0.1", 8000],
    ["::1", 8000],
    ["127.0.0.1", 8080],
    ["0.0.0.0", 8080],
    ["::1", 9000],
    ["0:0:0:0:0:0:0:1", 9000],
    ["127.0.0.1", 9000],
    ["203.0.113.9", 7000],
  ])("refuses %s port %i", (address, port) => {
    expect(stackTargetRefusal(address, port, targets)).toBe(`port ${port} there is one of this stack's own services`);
  });

  it.each([
    ["127.0.0.1", 8001],
    ["203.0.113.10", 7000],
    ["93.184.216.34", 8000],
    ["127.0.0.1", 7000],
  ])("lets %s port %i through", (address, port) => {
    expect(stackTargetRefusal(address, port, targets)).toBeUndefined();
  });

  it("reads the list from OUTBOUND_DENY_TARGETS and refuses a malformed entry", () => {
    expect(formatTargets(targets)).toBe("127.0.0.1:8000,0.0.0.0:8080,[::1]:9000,203.0.113.9:7000");
    expect(() => parseTargets("db.local:8000")).toThrow(/not an IP address and port/);
  });
});

describe("a registered loopback server", () => {
  let server: Server;
  let port: number;
  let previous: string | undefined;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end("reached"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    previous = process.env[DENY_TARGETS_ENV];
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env[DENY_TARGETS_ENV];
    else process.env[DENY_TARGETS_ENV] = previous;
    await new Promise((resolve) => server.close(resolve));
  });

  it("is reached while unregistered and refused once the stack registers it, at the next connection", async () => {
    const guarded = outboundFetch({ allowLoopback: true });
    try {
      delete process.env[DENY_TARGETS_ENV];
      expect(await (await guarded(`http://127.0.0.1:${port}/`)).text()).toBe("reached");
      process.env[DENY_TARGETS_ENV] = formatTargets([{ host: "127.0.0.1", port }]);
      const fresh = outboundFetch({ allowLoopback: true });
      await expect(fresh(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ kind: "refused_address" });
      await fresh.close();
    } finally {
      await guarded.close();
    }
  });
});
