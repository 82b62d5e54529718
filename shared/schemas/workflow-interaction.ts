import * as z from "zod";
import { queryBoolean } from "./query.js";

/**
 * Talking to running executions (docs/workflows.md, "Signals, updates and queries", "History", "Reset"):
 * OA:SignalInvocationBody, QueryInvocationBody, UpdateInvocationBody (`{name, input}`, the input an object
 * or a NetworkEncodedInput), ResetInvocationBody, and the history's `decode_payloads`.
 */
export const InvocationBody = z.strictObject({
  name: z.string().min(1).max(256),
  input: z.unknown().optional(),
});
export type InvocationBody = z.infer<typeof InvocationBody>;

export const SignalOut = z.object({ message: z.string() });
export const QueryOut = z.object({ query_name: z.string(), result: z.unknown() });
export const UpdateOut = z.object({ update_name: z.string(), result: z.unknown() });

/** The OpenAPI's default (false); the spec's text says true. */
export const HistoryQuery = z.looseObject({ decode_payloads: queryBoolean(false) });

export const ResetBody = z.strictObject({
  event_id: z.number().int().min(1),
  reason: z.string().max(4096).nullish(),
  exclude_signals: z.boolean().default(false),
  exclude_updates: z.boolean().default(false),
});
export type ResetBody = z.infer<typeof ResetBody>;
