import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { RateLimited } from "../../../../shared/domain/errors.js";
import { enforceRateLimit } from "../../../../shared/services/identity/rate-limits.js";
import { mockDynamo } from "../../../support/aws-mocks.js";

const dynamo = mockDynamo({ resolves: {} });
const at = new Date("2026-11-23T12:34:45.000Z");

describe("enforceRateLimit", () => {
  it("costs nothing for a key without a limit", async () => {
    await enforceRateLimit({ keyId: "k1" }, at);

    expect(dynamo.calls()).toHaveLength(0);
  });

  it("takes one request from the key's minute with one conditional ADD", async () => {
    await enforceRateLimit({ keyId: "k1", rateLimitPerMinute: 5 }, at);

    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      TableName: "platform-rates",
      Key: { key: "k1", window: "2026-11-23T12:34" },
      UpdateExpression: "ADD n :one SET #ttl = if_not_exists(#ttl, :ttl)",
      ConditionExpression: "attribute_not_exists(n) OR n < :limit",
      ExpressionAttributeValues: { ":one": 1, ":limit": 5, ":ttl": Math.floor(at.getTime() / 1000) + 120 },
    });
  });

  it("refuses with 429 and the seconds to the next minute once the minute's allowance is taken", async () => {
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: "no", $metadata: {} }));

    const refusal = await enforceRateLimit({ keyId: "k1", rateLimitPerMinute: 5 }, at).catch((e: unknown) => e);

    expect(refusal).toBeInstanceOf(RateLimited);
    expect(refusal).toMatchObject({ status: 429, code: "rate_limit_exceeded", headers: { "retry-after": "15" } });
  });
});
