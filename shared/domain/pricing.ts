/**
 * What model calls cost. Amounts are kept as integer micro-units of the price file's currency (a millionth
 * of a dollar), so counters added to concurrently stay exact.
 */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
  /** Prompt tokens the upstream read from its prompt cache (Bedrock bills them at a tenth or so); the input price when absent. */
  cached_input_per_million?: number;
}

export interface PriceList {
  as_of: string;
  currency: string;
  models: Record<string, ModelPrice>;
  /**
   * Prices of single deployments (`<catalog provider>/<upstream model id>`, as docs/routing.md names them) that cost
   * otherwise than their model: a region's Bedrock price, a self-hosted server at 0 a token.
   */
  deployments?: Record<string, ModelPrice>;
}

export const MICROS_PER_UNIT = 1_000_000;

/**
 * The price of a call: the deployment's that answered when it has one of its own, else the model's, or that of the
 * root a fine-tuned model was trained from; undefined when unpriced.
 */
export function priceOf(list: PriceList, model: { id: string; root?: string }, deployment?: string): ModelPrice | undefined {
  return (deployment ? list.deployments?.[deployment] : undefined) ?? list.models[model.id] ?? (model.root ? list.models[model.root] : undefined);
}

/** A call's cost in micro-units, rounded up so that many small calls never add up to less than they cost. */
export function costMicros(price: ModelPrice | undefined, tokens: { promptTokens: number; completionTokens: number; cachedTokens?: number | undefined }): number {
  if (!price) return 0;
  const cached = Math.min(tokens.cachedTokens ?? 0, tokens.promptTokens);
  // Price per million tokens × tokens ÷ 1e6 × 1e6 micro-units per unit: the per-million price is micro-units per token.
  return Math.ceil(
    price.input_per_million * (tokens.promptTokens - cached) + (price.cached_input_per_million ?? price.input_per_million) * cached + price.output_per_million * tokens.completionTokens,
  );
}

/** The calendar month (UTC) a moment falls in, as spend counters are keyed: `2026-11`. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** The UTC day, as daily usage aggregates are keyed: `2026-11-23`. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

export interface SpendLimitState {
  limit: { value: number | null; currency: string | null; noMonthlyLimit: boolean } | null | undefined;
  spentMicros: number;
}

/** Whether a monthly limit is set at all (a value, not "no monthly limit"). */
export const hasSpendLimit = (limit: SpendLimitState["limit"]): limit is { value: number; currency: string | null; noMonthlyLimit: false } =>
  Boolean(limit && !limit.noMonthlyLimit && limit.value !== null);

/** Whether new model calls are refused: a limit is set and the month's spend has reached it. */
export function spendLimitReached({ limit, spentMicros }: SpendLimitState): boolean {
  return hasSpendLimit(limit) && spentMicros >= Math.round(limit.value * MICROS_PER_UNIT);
}
