/**
 * The shared document client (shared/store/client.ts) has no logger step: the SDK's deep-copies each command's
 * input and output for a logger that, here, does nothing with them. (Read from the stack, not by sending: in a
 * shared worker another file may have stubbed the clients' `send`.)
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { expect, it } from "vitest";
import { documents } from "../../../shared/store/client.js";

it("leaves out the SDK's logger step, which a client built as the SDK's default has", () => {
  const loggerStep = (steps: string[]) => steps.filter((step) => step.startsWith("loggerMiddleware"));
  expect(loggerStep(DynamoDBDocumentClient.from(new DynamoDBClient({})).middlewareStack.identify())).toHaveLength(1);
  expect(loggerStep(documents.middlewareStack.identify())).toStrictEqual([]);
});
