/**
 * The models a call tries, in order (docs/routing.md, "Fallbacks"): the model asked for, then its catalog entry's
 * fallbacks, each once. A model whose context window cannot hold the prompt is left out, so a prompt too long for
 * the first model goes to the first fallback that holds it (the context-window fallback). Only the first model's
 * list counts: a fallback's own fallbacks are not followed.
 */
export interface RoutableModel {
  name: string;
  /** Tokens its context window holds, when known. */
  contextLength?: number;
  /** Other models' names, tried in this order once every deployment of this one has failed. */
  fallbacks?: readonly string[];
}

export function modelsToTry<M extends RoutableModel>(first: M, promptTokens: number | undefined, modelNamed: (name: string) => M | undefined): M[] {
  const holds = (model: M) => promptTokens === undefined || model.contextLength === undefined || promptTokens <= model.contextLength;
  const seen = new Set([first.name]);
  const out = holds(first) ? [first] : [];
  for (const name of first.fallbacks ?? []) {
    if (seen.has(name)) continue;
    seen.add(name);
    const model = modelNamed(name);
    if (model && holds(model)) out.push(model);
  }
  return out;
}
