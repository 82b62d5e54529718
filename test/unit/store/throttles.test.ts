/**
 * The table-throttles signal (shared/store/throttles.ts): every attempt DynamoDB throttles is counted as one
 * embedded-metric-format line, retried attempts included; other errors and successes count nothing.
 */
import { DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { countSignal, SIGNALS_NAMESPACE_ENV, TABLE_THROTTLES } from "../../../shared/observability/signals.js";
import { countThrottles } from "../../../shared/store/throttles.js";

/** A DynamoDB endpoint that answers each request with the next of `answers` (an error type, or "ok"). */
function clientAnswering(answers: string[]) {
  const handler = {
    handle: async () => {
      const answer = answers.shift() ?? "ok";
      const statusCode = answer === "ok" ? 200 : 400;
      const body = answer === "ok" ? {} : { __type: `com.amazonaws.dynamodb.v20120810#${answer}`, message: "no" };
      return { response: { statusCode, headers: answer === "ok" ? {} : { "x-amzn-errortype": answer }, body: Readable.from([Buffer.from(JSON.stringify(body))]) } };
    },
  };
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: "us-east-1", endpoint: "http://dynamodb.test", credentials: { accessKeyId: "a", secretAccessKey: "b" }, maxAttempts: 3, requestHandler: handler as never, retryStrategy: undefined }),
  );
  countThrottles(client.middlewareStack);
  return client;
}

const get = new GetItemCommand({ TableName: "t", Key: { pk: { S: "a" } } });

let lines: string[];
beforeEach(() => {
  lines = [];
  process.env[SIGNALS_NAMESPACE_ENV] = "Platform-test/Signals";
  vi.spyOn(process.stdout, "write").mockImplementation(((line: string) => {
    lines.push(line);
    return true;
  }) as never);
});
afterEach(() => {
  delete process.env[SIGNALS_NAMESPACE_ENV];
  vi.restoreAllMocks();
});

const counted = () => lines.map((line) => JSON.parse(line)).filter((record) => record._aws);

describe("DynamoDB throttles", () => {
  it("count one per throttled attempt, retried ones included, in the deployment's namespace", async () => {
    const client = clientAnswering(["ThrottlingException", "ProvisionedThroughputExceededException", "ok"]);

    await client.send(get);

    const records = counted();
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: "Platform-test/Signals", Dimensions: [["Store"]], Metrics: [{ Name: "TableThrottles", Unit: "Count" }] }] },
      Store: "dynamodb",
      TableThrottles: 1,
    });
    expect(typeof records[0]._aws.Timestamp).toBe("number");
  });

  it("count nothing for an answer or another error", async () => {
    const client = clientAnswering(["ValidationException"]);

    await expect(client.send(get)).rejects.toMatchObject({ name: "ValidationException" });
    await client.send(get);

    expect(counted()).toEqual([]);
  });
});

describe("countSignal", () => {
  it("writes nothing where no namespace is set (locally)", () => {
    delete process.env[SIGNALS_NAMESPACE_ENV];
    const written: string[] = [];

    countSignal(TABLE_THROTTLES, (line) => written.push(line));

    expect(written).toEqual([]);
  });
});
