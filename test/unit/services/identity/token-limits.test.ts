import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { TokenLimitReached } from "../../../../shared/domain/errors.js";
import { reserveTokens, settleTokens } from "../../../../shared/services/identity/token-limits.js";
import { mockDynamo } from "../../../support/aws-mocks.js";

const dynamo = mockDynamo({ resolves: {} });
const at = new Date("2026-11-23T12:34:45.000Z");
const key = { keyId: "k1", tokensPerMinute: 1000, tokensPerDay: 50_000 };
const updates = () => dynamo.commandCalls(UpdateCommand).map((c) => c.args[0].input);
const refused = () => new ConditionalCheckFailedException({ message: "full", $metadata: {} });

describe("reserveTokens", () => {
  it("reserves the prompt in each window with one conditional ADD, leaving room for it", async () => {
    const reservation = await reserveTokens(key, 300, at);

    expect(reservation).toMatchObject({ keyId: "k1", tokens: 300, windows: [{ id: "tpm#2026-11-23T12:34" }, { id: "tpd#2026-11-23" }] });
    expect(updates()).toMatchObject([
      { TableName: "platform-rates", Key: { key: "k1", window: "tpm#2026-11-23T12:34" }, UpdateExpression: "ADD n :tokens SET #ttl = if_not_exists(#ttl, :ttl)", ConditionExpression: "attribute_not_exists(n) OR n <= :room", ExpressionAttributeValues: { ":tokens": 300, ":room": 700 } },
      { Key: { key: "k1", window: "tpd#2026-11-23" }, ExpressionAttributeValues: { ":tokens": 300, ":room": 49_700 } },
    ]);
  });

  it("refuses with 429 naming the full window and its Retry-After, and gives back what the other window took", async () => {
    dynamo.on(UpdateCommand, { Key: { key: "k1", window: "tpd#2026-11-23" }, ConditionExpression: "attribute_not_exists(n) OR n <= :room" }).rejects(refused());

    const refusal = await reserveTokens(key, 300, at).catch((e: unknown) => e);

    expect(refusal).toBeInstanceOf(TokenLimitReached);
    expect(refusal).toMatchObject({ status: 429, code: "tokens_per_day_exceeded", headers: { "retry-after": String(11 * 3600 + 25 * 60 + 15) } });
    const giveBack = updates().find((u) => u.ConditionExpression === undefined);
    expect(giveBack).toMatchObject({ Key: { key: "k1", window: "tpm#2026-11-23T12:34" }, ExpressionAttributeValues: { ":tokens": -300 } });
  });

  it("refuses a prompt larger than a limit without a write: no wait would let it in", async () => {
    const refusal = await reserveTokens({ keyId: "k1", tokensPerMinute: 100 }, 101, at).catch((e: unknown) => e);

    expect(refusal).toMatchObject({ status: 429, code: "tokens_per_minute_exceeded", message: expect.stringContaining("prompt (101 tokens)") });
    expect((refusal as TokenLimitReached).headers).toBeUndefined();
    expect(updates()).toHaveLength(0);
  });
});

describe("settleTokens", () => {
  it("adds what the call used beyond its reservation to the windows it reserved in, and gives back a failed call's", async () => {
    const reservation = await reserveTokens(key, 300, at);
    dynamo.resetHistory();

    await settleTokens(reservation, 420);
    await settleTokens(reservation, 0);

    expect(updates().map((u) => [u.Key!.window, u.ExpressionAttributeValues![":tokens"], u.ConditionExpression])).toStrictEqual([
      ["tpm#2026-11-23T12:34", 120, undefined],
      ["tpd#2026-11-23", 120, undefined],
      ["tpm#2026-11-23T12:34", -300, undefined],
      ["tpd#2026-11-23", -300, undefined],
    ]);
  });

  it("writes nothing when the call used exactly what it reserved", async () => {
    const reservation = await reserveTokens(key, 300, at);
    dynamo.resetHistory();

    await settleTokens(reservation, 300);

    expect(dynamo.calls()).toHaveLength(0);
  });
});
