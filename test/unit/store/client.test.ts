/**
 * The shared document client (shared/store/client.ts) hands nothing to the SDK's logger: its middleware
 * deep-copies each command's input and output for a logger that, here, does nothing with them.
 */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterEach, expect, it, vi } from "vitest";
import { documents } from "../../../shared/store/client.js";

afterEach(() => {
  vi.restoreAllMocks();
});

it("does not pass a DynamoDB command's input and outcome to the logger", async () => {
  const logged = [vi.spyOn(documents.config.logger, "info"), vi.spyOn(documents.config.logger, "error")];
  await expect(documents.send(new GetCommand({ TableName: "no-such-table", Key: { pk: "a" } }))).rejects.toThrow(/non-existent table|not found/i);
  for (const spy of logged) expect(spy).not.toHaveBeenCalled();
});
