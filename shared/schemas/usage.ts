import * as z from "zod";

const Day = z.iso.date();

/** GET /v1/usage (extension): the workspace's usage by day, model and key, from the daily totals. */
export const UsageReportQuery = z
  .strictObject({
  /** First day (UTC, inclusive); default: the first day of the current month. */
  from: Day.optional(),
  /** Last day (UTC, inclusive); default: today. */
  to: Day.optional(),
  /** How rows are grouped: any of day, model, key (repeat or comma-separate); default day and model. */
  group_by: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").map((s) => s.trim()) : ["day", "model"]))
    .pipe(z.array(z.enum(["day", "model", "key"])).min(1)),
  })
  .superRefine((query, ctx) => {
    if (!query.from || !query.to) return;
    const days = (Date.parse(query.to) - Date.parse(query.from)) / 86_400_000;
    if (days < 0) ctx.addIssue({ code: "custom", path: ["from"], message: "from is after to" });
    if (days > MAX_REPORT_DAYS) ctx.addIssue({ code: "custom", path: ["from"], message: `A report covers at most ${MAX_REPORT_DAYS} days` });
  });

export const MAX_REPORT_DAYS = 366;

export const UsageRow = z.object({
  day: z.string().nullable(),
  model: z.string().nullable(),
  key_id: z.string().nullable(),
  requests: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cost: z.number(),
});

export const UsageReportOut = z.object({
  object: z.literal("usage_report"),
  workspace_id: z.string(),
  from: z.string(),
  to: z.string(),
  currency: z.string(),
  prices_as_of: z.string(),
  data: z.array(UsageRow),
  total: UsageRow.omit({ day: true, model: true, key_id: true }),
  /** Whether this month's spend has reached the workspace's soft limit (false without one). */
  soft_limit_reached: z.boolean(),
});

/** WorkspaceSpendLimitOUT of the OpenAPI. */
export const SpendLimitOut = z.object({
  value: z.number().nullable(),
  currency: z.string().nullable(),
  no_monthly_limit: z.boolean().nullable(),
});

/** What PUT /v1/usage/spend-limit answers: the limit, and the soft limit (extension). */
export const SpendLimitSetOut = SpendLimitOut.extend({ soft_limit: z.number().nullable() });

/** Extension: a soft limit alerts (an event, `soft_limit_reached`) once the month's spend reaches it; it refuses nothing. */
const softLimit = z.number().nonnegative().max(1e9).nullish();

/** PUT /v1/usage/spend-limit (extension, admin keys): a value in a currency, or explicitly no monthly limit; either with a soft limit. */
export const SpendLimitIn = z.union([
  // Prices are in USD (config/prices.json, a test keeps the two equal): a limit in another currency could not be compared.
  z
    .strictObject({ workspace_id: z.uuid().optional(), value: z.number().nonnegative().max(1e9), currency: z.literal("USD").default("USD"), no_monthly_limit: z.literal(false).optional(), soft_limit: softLimit })
    .refine((limit) => limit.soft_limit === null || limit.soft_limit === undefined || limit.soft_limit < limit.value, { path: ["soft_limit"], message: "A soft limit alerts before the limit: it must be below value" }),
  z.strictObject({ workspace_id: z.uuid().optional(), no_monthly_limit: z.literal(true), value: z.null().optional(), currency: z.null().optional(), soft_limit: softLimit }),
]);
export type SpendLimitIn = z.output<typeof SpendLimitIn>;

/** GET /v1/usage/spend (extension): the month so far against the limit. */
export const SpendOut = z.object({
  object: z.literal("spend"),
  workspace_id: z.string(),
  month: z.string(),
  spent: z.number(),
  currency: z.string(),
  spend_limit: SpendLimitOut.nullable(),
  limit_reached: z.boolean(),
  soft_limit: z.number().nullable(),
  soft_limit_reached: z.boolean(),
});
