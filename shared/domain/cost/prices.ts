/**
 * AWS list prices as config/prices.json's `aws` section writes them down (no price service is reachable: they
 * are recorded by hand, with their sources, on the file's `as_of` date), and what a quantity costs under them.
 */

/** One price: `usd` for `per` units (default 1), or tiers over the month's cumulative quantity. */
export interface AwsPrice {
  unit: string;
  per?: number;
  usd?: number;
  /** Cumulative monthly quantity (in units) each tier runs up to; the last is open (`up_to: null`). */
  tiers?: { up_to: number | null; usd: number }[];
  source: string;
  note?: string;
}

/** Every price the cost model uses (shared/domain/cost/model.ts); the price file must hold each. */
export const AWS_PRICE_KEYS = [
  "lambda_requests",
  "lambda_arm64_gb_seconds",
  "api_gateway_rest_requests",
  "dynamodb_write_request_units",
  "dynamodb_read_request_units",
  "dynamodb_storage",
  "dynamodb_pitr",
  "s3_standard_storage",
  "s3_put_requests",
  "s3_get_requests",
  "data_transfer_out",
  "step_functions_standard_transitions",
  "scheduler_invocations",
  "eventbridge_aws_events",
  "cloudwatch_logs_ingestion",
  "cloudwatch_logs_storage",
  "cloudwatch_alarms",
  "cloudwatch_dashboards",
  "cloudwatch_custom_metrics",
  "kms_keys",
  "kms_requests",
  "sns_publishes",
  "sns_email_deliveries",
  "cloudfront_https_requests",
  "cloudfront_data_out",
  "cloudfront_data_to_origin",
  "cloudfront_function_invocations",
  "alb_hours",
  "alb_lcu_hours",
  "fargate_x86_vcpu_hours",
  "fargate_x86_gb_hours",
  "fargate_arm64_vcpu_hours",
  "fargate_arm64_gb_hours",
  "public_ipv4_hours",
  "nat_gateway_hours",
  "nat_gateway_data",
  "ecr_storage",
  "athena_tb_scanned",
  "s3vectors_storage",
  "s3vectors_put_gb",
  "s3vectors_query_requests",
  "s3vectors_query_tb",
  "textract_detect_document_text_pages",
  "transcribe_streaming_minutes",
] as const;
export type AwsPriceKey = (typeof AWS_PRICE_KEYS)[number];

export interface AwsPriceList {
  region: string;
  hours_per_month: number;
  prices: Record<string, AwsPrice>;
}

/** The prices the model needs, or an error naming the ones the file lacks or writes wrong. */
export function checkAwsPrices(list: AwsPriceList): Record<AwsPriceKey, AwsPrice> {
  const wrong = AWS_PRICE_KEYS.filter((key) => {
    const price = list.prices[key];
    if (!price) return true;
    const tiers = price.tiers;
    if (tiers) return tiers.length === 0 || tiers.at(-1)!.up_to !== null || tiers.some((t, i) => i > 0 && (t.up_to ?? Infinity) <= tiers[i - 1]!.up_to!);
    return typeof price.usd !== "number" || price.usd < 0;
  });
  if (wrong.length) throw new Error(`The price file's aws section lacks or misstates: ${wrong.join(", ")}`);
  return list.prices as Record<AwsPriceKey, AwsPrice>;
}

/** What `quantity` units cost in a month: a flat price, or each tier's share of the quantity at that tier's price. */
export function priceQuantity(price: AwsPrice, quantity: number): number {
  const per = price.per ?? 1;
  if (!price.tiers) return (quantity * price.usd!) / per;
  let usd = 0;
  let from = 0;
  for (const tier of price.tiers) {
    const upTo = tier.up_to ?? Infinity;
    const inTier = Math.max(0, Math.min(quantity, upTo) - from);
    usd += (inTier * tier.usd) / per;
    if (quantity <= upTo) break;
    from = upTo;
  }
  return usd;
}

/**
 * The price as one reads it: `$3.50 / 1M request` or, tiered, its first tier's price with `(tiered)`. A free
 * first tier (an always-free allowance) is said as such, with the price after it: `$3 / dashboard-month after 3 free`.
 */
export function describePrice(price: AwsPrice): string {
  const per = price.per ?? 1;
  const perText = per === 1 ? "" : per >= 1_000_000 ? `${per / 1_000_000}M ` : per >= 1_000 ? `${per / 1_000}K ` : `${per} `;
  const [first, next] = price.tiers ?? [];
  if (first && next && first.usd === 0) return `$${next.usd} / ${perText}${price.unit} after ${first.up_to} free${price.tiers!.length > 2 ? " (tiered)" : ""}`;
  const amount = first ? first.usd : price.usd!;
  return `$${amount} / ${perText}${price.unit}${price.tiers ? " (tiered)" : ""}`;
}
