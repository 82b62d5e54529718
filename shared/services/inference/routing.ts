import { setTimeout as sleep } from "node:timers/promises";
import type { Caller } from "../../domain/caller.js";
import { deploymentsOf, type DeploymentEntry, type ModelEntry } from "../../domain/models.js";
import { Balancer } from "../../domain/routing/balance.js";
import { Cooldowns } from "../../domain/routing/cooldown.js";
import { routeCall, type Attempt, type RoutedDeployment, type RoutedModel } from "../../domain/routing/route-call.js";
import type { RetryPolicy } from "../../domain/routing/retry.js";
import { UpstreamError } from "../../domain/errors.js";
import type { Endpoint } from "../../schemas/model.js";
import { providerNamed } from "../../inference/registry.js";
import type { InferenceProvider } from "../../inference/types.js";
import { logger } from "../../observability/logger.js";
import { breakerStore } from "../../store/breakers.js";
import { bodyModel } from "../models/catalog.js";

/**
 * The router bound to this process (docs/routing.md): the catalog's models and deployments, one balancer per model
 * and one set of breakers, kept in memory across invocations. A healthy call costs a pick and two map updates: no
 * store read or write.
 */

export interface Deployment extends RoutedDeployment, DeploymentEntry {}

interface Model extends RoutedModel<Deployment> {
  entry: ModelEntry;
  strategy: "weighted-round-robin" | "least-busy";
}

/** The default when the catalog says nothing: one more try on the same deployment, after 250 ms at most. */
export const DEFAULT_RETRY: Omit<RetryPolicy, "attempts"> = { baseMs: 250, maxMs: 5_000 };

let cooldowns = new Cooldowns();

/**
 * Breakers other processes opened are read from the store at most every SHARE_EVERY_MS, in the background: a call
 * never waits for that read, except a process's first routed call, which has nothing else to go on.
 */
const SHARE_EVERY_MS = 5_000;
let sharedAt = Number.NEGATIVE_INFINITY;
let sharing: Promise<void> | undefined;
const balancers = new Map<string, { signature: string; balancer: Balancer<Deployment> }>();

export const deploymentId = (deployment: Pick<DeploymentEntry, "provider" | "upstream">): string => `${deployment.provider}/${deployment.upstream}`;

/** Per catalog entry (the model cache hands the same object out for its lifetime): built once, not per call. */
const routedModels = new WeakMap<ModelEntry, Model>();

function routedModel(entry: ModelEntry): Model {
  let model = routedModels.get(entry);
  if (!model) {
    model = routedModelOf(entry);
    routedModels.set(entry, model);
  }
  return model;
}

function routedModelOf(entry: ModelEntry): Model {
  const deployments = deploymentsOf(entry).map((d) => ({ ...d, id: deploymentId(d) }));
  return {
    entry,
    name: entry.id,
    contextLength: entry.maxContextLength,
    ...(entry.fallbacks ? { fallbacks: entry.fallbacks } : {}),
    deployments,
    strategy: entry.routing?.strategy ?? "weighted-round-robin",
    retry: { attempts: 1 + (entry.routing?.retries ?? 1), ...DEFAULT_RETRY },
  };
}

/** The model's balancer, made again when its deployments changed (a catalog seeded again). */
const signatures = new WeakMap<readonly Deployment[], string>();
function balancerOf(model: Model): Balancer<Deployment> {
  let signature = signatures.get(model.deployments);
  if (signature === undefined) {
    signature = `${model.strategy} ${model.deployments.map((d) => `${d.id}*${d.weight}/${d.maxConcurrent ?? ""}/${d.timeoutMs ?? ""}/${d.guardrail ? `${d.guardrail.id}@${d.guardrail.version}` : ""}`).join(" ")}`;
    signatures.set(model.deployments, signature);
  }
  const known = balancers.get(model.name);
  if (known?.signature === signature) return known.balancer;
  const balancer = new Balancer(model.deployments, model.strategy);
  balancers.set(model.name, { signature, balancer });
  return balancer;
}

export interface RoutedCall<T> {
  value: T;
  /** The model that answered: the one asked for, or a fallback. */
  model: ModelEntry;
  provider: InferenceProvider;
  deployment: Deployment;
  attempts: Attempt[];
}

/**
 * Calls `first` (or, when its deployments fail upstream, its fallbacks that serve `endpoint` and hold the prompt)
 * through `call`, which gets the deployment's provider and the model's id there. `withFallbacks: false` keeps the
 * call on the model's own deployments (embeddings: another model's vectors are in another space).
 */
export async function routed<T>(
  caller: Pick<Caller, "workspace">,
  first: ModelEntry,
  endpoint: Endpoint,
  options: { promptTokens?: number; signal?: AbortSignal; withFallbacks?: boolean },
  call: (provider: InferenceProvider, upstream: string, model: ModelEntry, signal: AbortSignal | undefined, deployment: DeploymentEntry) => Promise<T>,
): Promise<RoutedCall<T>> {
  const providers = new Map<string, InferenceProvider>();
  const own = routedModel(first);
  const model = options.withFallbacks === false && own.fallbacks ? { ...own, fallbacks: [] } : own;
  // Only a model with somewhere else to go has breakers worth sharing (route-call.ts).
  if (model.deployments.length > 1 || model.fallbacks?.length) await sharedBreakersRecent();
  const result = await routeCall(
    model,
    options.promptTokens,
    {
      modelNamed: async (name) => {
        const entry = await bodyModel(caller, name).catch(() => undefined);
        return entry && !entry.archived && entry.endpoints.includes(endpoint) ? routedModel(entry) : undefined;
      },
      balancerOf,
      cooldowns,
      changed: (deployment, change) => {
        logger.warn("model deployment", { deployment: deployment.id, ...("opened" in change ? { coolingDownUntil: new Date(change.until).toISOString() } : { recovered: true }) });
        const written = "opened" in change ? breakerStore.open(deployment.id, change.until) : breakerStore.close(deployment.id);
        // Not awaited: the call goes on to the next deployment meanwhile. A lost write only delays the news for others.
        written.catch((error: unknown) => logger.warn("model deployment breaker not shared", { deployment: deployment.id, error: error as Error }));
      },
      sleep: (ms, signal) => sleep(ms, undefined, { signal }),
      now: () => performance.now(),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    async (model, deployment) => {
      const provider = await providerNamed(deployment.provider);
      providers.set(deployment.id, provider);
      if (deployment.timeoutMs === undefined) return call(provider, deployment.upstream, model.entry, options.signal, deployment);
      return withinTimeout(deployment, options.signal, (signal) => call(provider, deployment.upstream, model.entry, signal, deployment));
    },
  );
  return { value: result.value, model: result.model.entry, provider: providers.get(result.deployment.id)!, deployment: result.deployment, attempts: result.attempts };
}

/** Brings in the breakers other processes opened or closed (docs/routing.md, "State"); one read at a time. */
export function refreshSharedBreakers(): Promise<void> {
  sharing ??= breakerStore
    .openAt(Date.now())
    .then(
      (open) => cooldowns.share(new Map(open.map((breaker) => [breaker.deployment, breaker.until]))),
      (error: unknown) => logger.warn("model deployment breakers not read", { error: error as Error }),
    )
    .finally(() => {
      sharedAt = Date.now();
      sharing = undefined;
    });
  return sharing;
}

async function sharedBreakersRecent(): Promise<void> {
  if (Date.now() - sharedAt < SHARE_EVERY_MS) return;
  const first = sharedAt === Number.NEGATIVE_INFINITY;
  const read = refreshSharedBreakers();
  if (first) await read;
}

/**
 * One try bounded by its deployment's `timeout_ms`: past it the try is aborted and fails as a 504, which the router
 * retries or passes on. Only the wait for the answer is bounded (a stream's first event): the timer is cleared once
 * `call` resolves, so a stream that started goes on under the caller's signal alone.
 */
async function withinTimeout<T>(deployment: Deployment, callerSignal: AbortSignal | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), deployment.timeoutMs);
  try {
    return await call(callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal);
  } catch (error) {
    if (timeout.signal.aborted && !callerSignal?.aborted) throw new UpstreamError(504, `Deployment ${deployment.id} did not answer within ${deployment.timeoutMs} ms`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** For tests: forget the breakers and balancers (a process starting afresh). */
export function forgetRouting(): void {
  balancers.clear();
  cooldowns = new Cooldowns();
  sharedAt = Number.NEGATIVE_INFINITY;
}
