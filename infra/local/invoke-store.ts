import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What Lambda's runtime gives each invocation when several run at once in one environment: a store the
 * Powertools logger keeps its per-invocation state in (the request's keys, its Lambda context), via
 * `globalThis.awslambda.InvokeStore` and `AWS_LAMBDA_MAX_CONCURRENCY`. The local server runs every request's
 * handler in the same process, concurrently; without this, one request's `requestId`, `route` and `workspace`
 * keys would label another's lines. Deployed, each function instance serves one request at a time and needs
 * none of it.
 */
type Store = Record<string | symbol, unknown>;

const REQUEST_ID = Symbol.for("_AWS_LAMBDA_REQUEST_ID");
const PROTECTED = new Set(["_AWS_LAMBDA_REQUEST_ID", "_AWS_LAMBDA_X_RAY_TRACE_ID", "_AWS_LAMBDA_TENANT_ID"].map((k) => Symbol.for(k)));

class LocalInvokeStore {
  private readonly als = new AsyncLocalStorage<Store>();
  getContext = (): Store | undefined => this.als.getStore();
  hasContext = (): boolean => this.als.getStore() !== undefined;
  get = <T>(key: string | symbol): T | undefined => this.als.getStore()?.[key] as T | undefined;
  set = (key: string | symbol, value: unknown): void => {
    if (PROTECTED.has(key as symbol)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const store = this.als.getStore();
    if (!store) throw new Error("No context available");
    store[key] = value;
  };
  run = <T>(context: Store, fn: () => T): T => this.als.run(context, fn);
  getRequestId = (): string => (this.get<string>(REQUEST_ID) ?? "-");
  getXRayTraceId = (): string | undefined => undefined;
  getTenantId = (): string | undefined => undefined;
  getTraceparent = (): string | undefined => undefined;
  getTracestate = (): string | undefined => undefined;
  getBaggage = (): string | undefined => undefined;
}

const lambdaGlobal = globalThis as unknown as { awslambda?: { InvokeStore?: LocalInvokeStore } };
lambdaGlobal.awslambda ??= {};
const store = (lambdaGlobal.awslambda.InvokeStore ??= new LocalInvokeStore());
// Powertools scopes its state to the store only when invocations may be concurrent.
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= "1000";

/** Runs one invocation (a request's authorizer or handler) in a scope of its own. */
export function inInvocation<T>(requestId: string, fn: () => T): T {
  return store.run({ [REQUEST_ID]: requestId }, fn);
}
