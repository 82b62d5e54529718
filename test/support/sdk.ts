import { Mistral } from "@mistralai/mistralai";
import { expect } from "vitest";
import type { RunningApi } from "../../infra/local/server.js";

/**
 * The official, unmodified SDK pointed at the test API with `apiKey`: a 10 s timeout and no retries,
 * so a test sees the server's first answer.
 */
type SdkOptions = NonNullable<ConstructorParameters<typeof Mistral>[0]>;

export const sdkClient = (api: Pick<RunningApi, "url">, apiKey: string, options: SdkOptions = {}): Mistral =>
  new Mistral({ serverURL: api.url, apiKey, timeoutMs: 10_000, retryConfig: { strategy: "none" }, ...options });

/** What a call was rejected with (undefined when it was not). */
export const rejectionOf = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (e: unknown) => e,
  );

/** The error a rejected call produced, checked to be an instance of `kind`. */
export async function errorOf<E>(call: Promise<unknown>, kind: abstract new (...args: never[]) => E): Promise<E> {
  const error = await rejectionOf(call);
  expect(error, `the call should have been rejected with ${kind.name}`).toBeInstanceOf(kind);
  return error as E;
}
