/**
 * A local function for `.waitForTaskToken` tasks: records the Payload it is invoked with, and, when the
 * state's input asks (`act`), completes its own token through @aws-sdk/client-sfn over HTTP, as the
 * workflow dispatcher does for platform tasks. Calls are kept on globalThis (see calls.ts).
 */
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from "@aws-sdk/client-sfn";

export interface DispatchPayload {
  token: string;
  execution: string;
  state: string;
  input: DispatchInput & Record<string, unknown>;
}

export interface DispatchInput {
  /** What the function does with its token; nothing by default (the test completes it). */
  act?: { endpoint: string; succeed?: unknown; fail?: { error: string; cause: string } };
  /** The function throws an error of this name instead. */
  throws?: string;
}

const dispatched = ((globalThis as { __dispatched?: DispatchPayload[] }).__dispatched ??= []);

export const dispatchedTo = (executionArn: string, state?: string): DispatchPayload[] =>
  dispatched.filter((p) => p.execution === executionArn && (!state || p.state === state));

export async function handler(payload: DispatchPayload) {
  dispatched.push(payload);
  const { act, throws } = payload.input ?? {};
  if (throws) throw Object.assign(new Error(`dispatch refused ${payload.state}`), { name: throws });
  if (act) {
    const sfn = new SFNClient({ endpoint: act.endpoint });
    if (act.fail) await sfn.send(new SendTaskFailureCommand({ taskToken: payload.token, ...act.fail }));
    else await sfn.send(new SendTaskSuccessCommand({ taskToken: payload.token, output: JSON.stringify(act.succeed ?? null) }));
  }
  return { dispatched: payload.state };
}
