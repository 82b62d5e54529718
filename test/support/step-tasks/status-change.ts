/** A status-change handler module (onStatusChangeHandler): records the events it is called with, on globalThis. */
import type { Context } from "aws-lambda";
import type { StatusChangeEvent } from "../../../shared/engine/status-change.js";

export const statusChanges = ((globalThis as { __statusChanges?: Array<{ event: StatusChangeEvent; context: Context }> }).__statusChanges ??= []);

export async function handler(event: StatusChangeEvent, context: Context) {
  statusChanges.push({ event, context });
}
