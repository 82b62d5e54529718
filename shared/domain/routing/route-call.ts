import { BadRequest, UpstreamError } from "../errors.js";
import type { Balancer } from "./balance.js";
import type { Cooldowns } from "./cooldown.js";
import { holdsPrompt, modelsToTry, type RoutableModel } from "./fallbacks.js";
import { isUpstreamFailure, retryDelayMs, type RetryPolicy } from "./retry.js";

/**
 * One model call through the router (docs/routing.md): the models to try in order (the one asked for, then its
 * fallbacks that hold the prompt), for each its deployments as the balancer picks them (cooling-down ones skipped),
 * each deployment tried again after an upstream failure as the retry policy allows. A failure that is the caller's
 * (a 4xx other than 408/429) ends the call at once: it would fail the same way anywhere.
 *
 * Pure orchestration: the models, balancers, breakers, clock and sleep come from the caller (the inference
 * service binds them to the catalog and the process's state), so every rule is tested without an upstream.
 */

export interface RoutedDeployment {
  /** Unique across the catalog: the breaker's key (`provider/upstream`). */
  id: string;
  weight: number;
  maxConcurrent?: number;
}

export interface RoutedModel<D extends RoutedDeployment> extends RoutableModel {
  deployments: readonly D[];
  retry: RetryPolicy;
}

/** One try, for the call's span: which deployment, how it ended, how long it took. */
export interface Attempt {
  model: string;
  deployment: string;
  outcome: "ok" | "failed";
  status?: number;
  error?: string;
  ms: number;
}

export interface RouteDeps<D extends RoutedDeployment, M extends RoutedModel<D>> {
  /** A fallback's routed model, resolved only when the call gets to it (a healthy call reads none). */
  modelNamed(name: string): Promise<M | undefined>;
  balancerOf(model: M): Balancer<D>;
  cooldowns: Cooldowns;
  /** Told when a breaker opens or closes (to share the change with other processes). */
  changed?(deployment: D, change: NonNullable<ReturnType<Cooldowns["failed"]>>): void;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  now(): number;
  signal?: AbortSignal;
}

export interface Routed<T, D, M> {
  value: T;
  model: M;
  deployment: D;
  attempts: Attempt[];
}

/** Every model and deployment failed upstream: the last failure, with every attempt for the caller's span. */
export class RoutingExhausted extends UpstreamError {
  constructor(
    last: UpstreamError,
    readonly attempts: Attempt[],
  ) {
    super(last.status, attempts.length > 1 ? `${last.message} (after ${attempts.length} attempts)` : last.message, last.retryAfterSeconds, last.retryHere);
  }
}

export async function routeCall<T, D extends RoutedDeployment, M extends RoutedModel<D>>(
  first: M,
  promptTokens: number | undefined,
  deps: RouteDeps<D, M>,
  call: (model: M, deployment: D) => Promise<T>,
): Promise<Routed<T, D, M>> {
  const attempts: Attempt[] = [];
  let last: UpstreamError | undefined;
  // A breaker skips a deployment only where something else can take the call: never a sole deployment without fallbacks.
  const alternatives = (model: M) => model.deployments.length > 1 || (first.fallbacks?.length ?? 0) > 0;
  for await (const model of modelsToTry(first, promptTokens, (name) => deps.modelNamed(name))) {
    const served = await tryModel(model, alternatives(model), deps, call, attempts);
    if ("value" in served) return { value: served.value, model, deployment: served.deployment, attempts };
    last = served.failure ?? last;
  }
  if (last) throw new RoutingExhausted(last, attempts);
  if (!holdsPrompt(first, promptTokens)) throw new PromptTooLong(first, promptTokens!);
  throw new UpstreamError(503, `No deployment of '${first.name}' or its fallbacks is available now (each is cooling down)`, 1);
}

/** No model of the call holds its prompt: the caller's 400, as a prompt over a model's context always was. */
export class PromptTooLong extends BadRequest {
  constructor(model: RoutableModel, promptTokens: number) {
    super(`Prompt (${promptTokens} tokens) is over the ${model.contextLength}-token context of '${model.name}' and of each of its fallbacks`, "context_length_exceeded", "messages");
  }
}

async function tryModel<T, D extends RoutedDeployment, M extends RoutedModel<D>>(
  model: M,
  coolable: boolean,
  deps: RouteDeps<D, M>,
  call: (model: M, deployment: D) => Promise<T>,
  attempts: Attempt[],
): Promise<{ value: T; deployment: D } | { failure?: UpstreamError }> {
  const balancer = deps.balancerOf(model);
  const tried = new Set<string>();
  let failure: UpstreamError | undefined;
  for (;;) {
    const deployment = balancer.pick((id) => !coolable || deps.cooldowns.available(id), tried);
    if (!deployment) return { failure };
    tried.add(deployment.id);
    for (let attempt = 1; ; attempt += 1) {
      if (coolable) deps.cooldowns.begin(deployment.id);
      balancer.begin(deployment.id);
      const started = deps.now();
      try {
        const value = await call(model, deployment);
        attempts.push({ model: model.name, deployment: deployment.id, outcome: "ok", ms: deps.now() - started });
        const change = coolable ? deps.cooldowns.succeeded(deployment.id) : undefined;
        if (change) deps.changed?.(deployment, change);
        return { value, deployment };
      } catch (error) {
        const ms = deps.now() - started;
        if (!isUpstreamFailure(error) || deps.signal?.aborted) throw error;
        attempts.push({ model: model.name, deployment: deployment.id, outcome: "failed", status: error.status, error: error.message.slice(0, 200), ms });
        failure = error;
        // A deployment that is never skipped has no breaker: its failures only count toward its retries.
        const change = coolable ? deps.cooldowns.failed(deployment.id) : undefined;
        if (change) deps.changed?.(deployment, change);
        const delay = change || !error.retryHere ? undefined : retryDelayMs(error, attempt, model.retry);
        if (delay === undefined) break;
        await deps.sleep(delay, deps.signal);
      } finally {
        balancer.end(deployment.id);
      }
    }
  }
}
