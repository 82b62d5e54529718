import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { countSignal, TABLE_THROTTLES } from "../observability/signals.js";

/** The errors DynamoDB answers when it throttles a request (the SDK retries them). */
const THROTTLED = new Set(["ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"]);

type Stack = DynamoDBDocumentClient["middlewareStack"];

/**
 * Counts every attempt DynamoDB throttles, retried ones included (it runs after the SDK's retry middleware in the same
 * step, high priority, so inside its loop: it sees each attempt's error): the deployment's one table-throttles signal, in place of two alarm metrics per table
 * (decision 0066).
 */
export function countThrottles(stack: Stack): void {
  stack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (THROTTLED.has((error as { name?: string }).name ?? "")) countSignal(TABLE_THROTTLES);
        throw error;
      }
    },
    { step: "finalizeRequest", priority: "low", name: "countTableThrottles", override: true },
  );
}
