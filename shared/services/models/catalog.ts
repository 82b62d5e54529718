import type { Caller } from "../../domain/caller.js";
import { catalogDeployments, type CatalogFile, type Endpoint } from "../../schemas/model.js";
import { modelStore } from "../../store/models.js";
import { BadRequest, Conflict, NotFound } from "../../domain/errors.js";
import { fromCatalog, requireEndpoint, requireModelAllowed, type ModelEntry } from "../../domain/models.js";
import { TtlCache } from "../../domain/process-cache.js";

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Model cards as model calls read them, cached in the process (decision 0045): a card changes when the
 * catalog is seeded or a fine-tuned model is changed, and such a change shows within PROCESS_CACHE_TTL_MS
 * everywhere (at once in the process that made it). A name that resolves to nothing is not cached: a model
 * registered a moment later is found at once.
 */
const cards = TtlCache.named<ModelEntry | undefined>("model-cards");
const cardKey = (workspace: string, idOrAlias: string) => `${workspace}\u0000${idOrAlias}`;

/** A model the caller may use, by id or alias; unknown names are 404s that name the model. */
export async function resolve(caller: Pick<Caller, "workspace">, idOrAlias: string): Promise<ModelEntry> {
  const model = await cards.through(cardKey(caller.workspace, idOrAlias), () => modelStore.find(caller.workspace, idOrAlias), (found) => found !== undefined);
  if (!model) throw new NotFound("model", idOrAlias);
  return model;
}

/** After this process changed the catalog: an alias or a base model may be behind any cached name. */
const forgetCards = (): void => cards.forget();

/**
 * A model named in a request body (a chat, an embedding, an agent, a batch job…): an unknown name is the
 * caller's mistake in a field, so 400 `invalid_model` as Mistral answers it, everywhere, rather than the
 * 404 of a model route (GET /v1/models/{model_id}).
 */
export async function bodyModel(caller: Pick<Caller, "workspace" | "models">, name: string): Promise<ModelEntry> {
  let model: ModelEntry;
  try {
    model = await resolve(caller, name);
  } catch (error) {
    if (error instanceof NotFound) throw new BadRequest(`Invalid model: no model '${name}' exists in this workspace`, "invalid_model", "model");
    throw error;
  }
  requireModelAllowed(caller, name, model);
  return model;
}

/** A model named in a request body that must also serve `endpoint`. */
export async function requireBodyModel(caller: Pick<Caller, "workspace" | "models">, name: string, endpoint: Endpoint): Promise<ModelEntry> {
  const model = await bodyModel(caller, name);
  requireEndpoint(model, endpoint);
  return model;
}

export async function list(caller: Caller, filter: { provider?: string; model?: string }): Promise<ModelEntry[]> {
  const models = await modelStore.listVisible(caller.workspace);
  return models
    .filter((m) => !filter.provider || m.ownedBy === filter.provider || m.provider === filter.provider)
    .filter((m) => !filter.model || m.id === filter.model || m.aliases.includes(filter.model))
    .sort((a, b) => (a.type === b.type ? a.id.localeCompare(b.id) : a.type === "base" ? -1 : 1));
}

/** The models of the caller's catalog that serve an endpoint and are not archived, in the list's order. */
export async function serving(caller: Caller, endpoint: Endpoint): Promise<ModelEntry[]> {
  return (await list(caller, {})).filter((m) => m.endpoints.includes(endpoint) && !m.archived);
}

/** Fine-tuned models only: base models come from the catalog file and are changed there. */
async function fineTuned(caller: Caller, id: string, action: string): Promise<ModelEntry> {
  const model = await resolve(caller, id);
  if (model.type !== "fine-tuned") {
    throw new BadRequest(`'${model.id}' is a base model; only fine-tuned models can be ${action}`, "base_model_immutable", "model_id");
  }
  return model;
}

export async function remove(caller: Caller, id: string): Promise<ModelEntry> {
  const model = await fineTuned(caller, id, "deleted");
  if (!(await modelStore.removeFineTuned(caller.workspace, model.id))) throw new NotFound("model", id);
  forgetCards();
  return model;
}

export async function update(caller: Caller, id: string, fields: { name?: string | null; description?: string | null }): Promise<ModelEntry> {
  const model = await fineTuned(caller, id, "updated");
  const updated = await modelStore.updateFineTuned(caller.workspace, model.id, fields);
  forgetCards();
  if (!updated) throw new NotFound("model", id);
  return updated;
}

export async function setArchived(caller: Caller, id: string, archived: boolean): Promise<ModelEntry> {
  const model = await fineTuned(caller, id, archived ? "archived" : "unarchived");
  const updated = await modelStore.updateFineTuned(caller.workspace, model.id, { archived });
  forgetCards();
  if (!updated) throw new NotFound("model", id);
  return updated;
}

/** Makes the stored base catalog match the catalog file (npm start, `npm run models -- seed`). */
export async function seed(catalog: CatalogFile): Promise<ModelEntry[]> {
  const created = nowSeconds();
  for (const model of catalog.models) {
    for (const { provider } of catalogDeployments(model)) {
      if (!catalog.providers[provider]) throw new Error(`Model ${model.id} names provider '${provider}', which the catalog does not define`);
    }
  }
  const entries = catalog.models.map((m) => fromCatalog(m, created));
  await modelStore.replaceBase(entries);
  forgetCards();
  return entries;
}

export interface FineTunedRegistration {
  workspace: string;
  id: string;
  /** The base model it was tuned from; the fine-tuned model inherits its provider and capabilities. */
  root: string;
  /** The upstream id that serves it (defaults to the id). */
  upstream?: string;
  provider?: string;
  job?: string;
  name?: string;
  description?: string;
}

/** Operators register fine-tuned models trained elsewhere, mapping the public id to an upstream model. */
export async function registerFineTuned(registration: FineTunedRegistration): Promise<ModelEntry> {
  const root = await resolve({ workspace: registration.workspace }, registration.root);
  if (root.type !== "base") throw new BadRequest(`The root '${registration.root}' must be a base model`, "invalid_root");
  // A fine-tuned model is served by its own provider and upstream id: never by its root's deployments or fallbacks.
  const { deployments: _deployments, fallbacks: _fallbacks, routing: _routing, ...inherited } = root;
  const entry: ModelEntry & { workspace: string } = {
    ...inherited,
    id: registration.id,
    type: "fine-tuned",
    aliases: [],
    provider: registration.provider ?? root.provider,
    upstream: registration.upstream ?? registration.id,
    ownedBy: registration.workspace,
    created: nowSeconds(),
    name: registration.name ?? null,
    description: registration.description ?? null,
    workspace: registration.workspace,
    root: root.id,
    rootVersion: root.upstream,
    job: registration.job ?? "",
    archived: false,
  };
  forgetCards();
  if (!(await modelStore.putFineTuned(entry))) throw new Conflict(`A model '${registration.id}' already exists in this workspace`, "model_exists");
  return entry;
}
