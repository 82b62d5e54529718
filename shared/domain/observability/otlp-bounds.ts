import { BadRequest, PayloadTooLarge } from "../errors.js";

/**
 * How much one OTLP export request may hold, whatever its encoding (docs/observability/ingest.md, "Bounds").
 * The 4 MiB byte cap bounds bytes, not objects: 4 MiB of empty ResourceSpans decode to 2 million objects.
 * These bound what decoding materialises, far above what an exporter sends (the SDKs' batches hold 512
 * spans of at most 128 attributes; the Collector's default batch 8,192 spans).
 */
export const OTLP_BOUNDS = {
  /** ResourceSpans / ResourceLogs in one request. */
  resources: 10_000,
  /** ScopeSpans / ScopeLogs in one request, all resources together. */
  scopes: 10_000,
  /** Spans / log records in one request. */
  items: 100_000,
  /** Attributes of one span, log record, event, link, resource or scope (the SDKs' default limit is 128). */
  attributesPerItem: 1_024,
  /** Every key-value and value in the request, nested ones included, and every event and link. */
  values: 262_144,
  /** How deep one attribute value nests (arrays and key-value lists in one another). */
  depth: 32,
} as const;

/** A request beyond a count bound: refused whole (413), before its items are mapped. */
export const tooMany = (what: string, bound: number) =>
  new PayloadTooLarge(`An OTLP export request may hold at most ${bound} ${what}: export smaller batches`, "too_many_items");

/** Resource or scope attributes past a bound: they belong to every item under them, so the request is refused (400). */
export const resourceRefused = (why: string) => new BadRequest(`OTLP resource or scope attributes cannot be read: ${why}`, "unreadable_attributes");

/** The reason an item (span, log record) is rejected for a value nested past the bound. */
export const itemTooDeep = `an attribute value nests deeper than ${OTLP_BOUNDS.depth} levels`;

/** The reason an item is rejected for holding more attributes than the bound. */
export const itemTooManyAttributes = `more than ${OTLP_BOUNDS.attributesPerItem} attributes`;

/** Counts against the request-wide bounds; throws the 413 at the first one passed. */
export class OtlpBudget {
  private resources = 0;
  private scopes = 0;
  private items = 0;
  private values = 0;

  resource(): void {
    if (++this.resources > OTLP_BOUNDS.resources) throw tooMany("resources", OTLP_BOUNDS.resources);
  }
  scope(): void {
    if (++this.scopes > OTLP_BOUNDS.scopes) throw tooMany("scopes", OTLP_BOUNDS.scopes);
  }
  item(signal: "spans" | "log records"): void {
    if (++this.items > OTLP_BOUNDS.items) throw tooMany(signal, OTLP_BOUNDS.items);
  }
  value(count = 1): void {
    this.values += count;
    if (this.values > OTLP_BOUNDS.values) throw tooMany("attribute values (nested ones, events and links included)", OTLP_BOUNDS.values);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * Walks the key-values of one holder (a span, a record, a resource) without recursion, counting every
 * key-value and value against the budget; answers why the holder cannot be kept (nested too deep, too
 * many attributes), or undefined. The walk stops at the depth bound, so a 60,000-level value costs 32 steps.
 */
export function checkAttributes(attributes: unknown, budget: OtlpBudget, nested: unknown[] = []): string | undefined {
  const top = listOf(attributes);
  if (top.length > OTLP_BOUNDS.attributesPerItem) return itemTooManyAttributes;
  const stack: { value: unknown; depth: number }[] = [];
  const pushKeyValues = (list: unknown[], depth: number) => {
    budget.value(list.length);
    for (const kv of list) if (isObject(kv)) stack.push({ value: kv.value, depth });
  };
  pushKeyValues(top, 1);
  for (const value of nested) stack.push({ value, depth: 1 });
  while (stack.length) {
    const { value, depth } = stack.pop()!;
    if (!isObject(value)) continue;
    budget.value();
    if (depth > OTLP_BOUNDS.depth) return itemTooDeep;
    const array = isObject(value.arrayValue) ? listOf(value.arrayValue.values) : undefined;
    const kvlist = isObject(value.kvlistValue) ? listOf(value.kvlistValue.values) : undefined;
    if (array) for (const item of array) stack.push({ value: item, depth: depth + 1 });
    if (kvlist) pushKeyValues(kvlist, depth + 1);
  }
  return undefined;
}

/** An item's events and links: counted, their attributes walked as the item's. */
function checkSpanParts(span: Record<string, unknown>, budget: OtlpBudget): string | undefined {
  for (const part of [...listOf(span.events), ...listOf(span.links)]) {
    budget.value();
    if (!isObject(part)) continue;
    const why = checkAttributes(part.attributes, budget);
    if (why) return why;
  }
  return undefined;
}

/**
 * Bounds an OTLP/JSON request already parsed, before anything maps it: the request-wide counts throw a 413
 * (resource or scope attributes nested too deep a 400); a span or log record that cannot be kept (nested too
 * deep, too many attributes) is replaced by its ids and the reason (`unreadable`), which the mapper counts
 * as rejected, and the rest of the request is kept.
 */
export function boundJsonRequest(signal: "traces" | "logs", request: Record<string, unknown>): void {
  const budget = new OtlpBudget();
  const [resourcesKey, scopesKey, itemsKey] = signal === "traces" ? ["resourceSpans", "scopeSpans", "spans"] : ["resourceLogs", "scopeLogs", "logRecords"];
  for (const resource of listOf(request[resourcesKey])) {
    budget.resource();
    if (!isObject(resource)) continue;
    const resourceWhy = isObject(resource.resource) ? checkAttributes(resource.resource.attributes, budget) : undefined;
    if (resourceWhy) throw resourceRefused(resourceWhy);
    for (const scope of listOf(resource[scopesKey])) {
      budget.scope();
      if (!isObject(scope)) continue;
      const scopeWhy = isObject(scope.scope) ? checkAttributes(scope.scope.attributes, budget) : undefined;
      if (scopeWhy) throw resourceRefused(scopeWhy);
      const items = listOf(scope[itemsKey]);
      items.forEach((item, i) => {
        budget.item(signal === "traces" ? "spans" : "log records");
        if (!isObject(item)) return;
        const why = checkAttributes(item.attributes, budget, "body" in item ? [item.body] : []) ?? checkSpanParts(item, budget);
        if (why) items[i] = { traceId: item.traceId, spanId: item.spanId, unreadable: why };
      });
    }
  }
}
