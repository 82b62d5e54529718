import type { Context } from "aws-lambda";
import { callsOf, record, type StubTimer } from "./calls.js";

/** A timer handler that records its event; it throws on its first `failTimes` calls. */
export async function handler(event: StubTimer, context: Context) {
  record("record", event, context.invokedFunctionArn);
  if (callsOf(event.id).length <= (event.failTimes ?? 0)) throw Object.assign(new Error(`timer ${event.id} refused`), { name: "StubFailure" });
}
