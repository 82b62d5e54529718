/**
 * The models a call tries, in order (docs/routing.md, "Fallbacks"): the model asked for, then its catalog entry's
 * fallbacks, each once. A model whose context window cannot hold the prompt is left out, so a prompt too long for
 * the first model goes to the first fallback that holds it (the context-window fallback). Only the first model's
 * list counts: a fallback's own fallbacks are not followed. Lazy: a fallback is looked up only when the call gets
 * to it, so a healthy call reads none.
 */
export interface RoutableModel {
  name: string;
  /** Tokens its context window holds, when known. */
  contextLength?: number;
  /** Other models' names, tried in this order once every deployment of this one has failed. */
  fallbacks?: readonly string[];
}

/** Whether `model`'s context window holds a prompt of `promptTokens` (unknown counts and sizes hold). */
export const holdsPrompt = (model: RoutableModel, promptTokens: number | undefined): boolean =>
  promptTokens === undefined || model.contextLength === undefined || promptTokens <= model.contextLength;

export async function* modelsToTry<M extends RoutableModel>(first: M, promptTokens: number | undefined, modelNamed: (name: string) => M | undefined | Promise<M | undefined>): AsyncGenerator<M> {
  if (holdsPrompt(first, promptTokens)) yield first;
  const seen = new Set([first.name]);
  for (const name of first.fallbacks ?? []) {
    if (seen.has(name)) continue;
    seen.add(name);
    const model = await modelNamed(name);
    if (model && holdsPrompt(model, promptTokens)) yield model;
  }
}
