/**
 * Evaluation pipelines (docs/observability/pipelines.md, decision 65): what a pipeline configuration is, how its
 * definition is checked against its kind, how detection patterns run (a linear-time engine over bounded text), which
 * text a target attribute names, the span evaluation each kind writes, and the sweep's watermark. Pure: the store and
 * the services do the I/O.
 */
import { createHash } from "node:crypto";
import { RE2JS } from "re2js";
import { Unprocessable, type ValidationIssue } from "../errors.js";
import type { Caller } from "../caller.js";
import type { DetectionDefinition, JudgePipelineDefinition, ModerationDefinition, PipelineConfigOut, PipelineDefinition, PipelineKind, PipelineSelector, SourceKind } from "../../schemas/observability/pipelines.js";
import { DetectionDefinition as DetectionSchema, ExportDefinition, JudgePipelineDefinition as JudgeSchema, ModerationDefinition as ModerationSchema } from "../../schemas/observability/pipelines.js";
import { chatMessagesOf, observabilityError } from "./datasets.js";
import { ExpressionError, parseExpression, parseFieldRef, type Filter } from "./expression.js";
import type { SpanEvaluationRow, TelemetryKind } from "./records.js";
import type { ModerationScores } from "../guardrails.js";
import { spanColumnOf } from "./otlp.js";

/** A pipeline configuration of a workspace, as stored. */
export interface PipelineConfig {
  workspace: string;
  organization: string;
  id: string;
  /** Who created it: the sweeps' model calls (usage, spend) are counted to its workspace under this principal. */
  ownerId: string;
  createdAt: string;
  updatedAt: string;
  name: string;
  description: string | null;
  slug: string | null;
  group: string | null;
  pipelineKind: Exclude<PipelineKind, "export">;
  selectors: { source_kind: "span" | "log"; filter: string | null }[];
  enabled: boolean;
  definition: PipelineDefinition;
  definitionHash: string;
}

/** The sources a sweep can read: spans and logs have a store here; metrics do not. */
export type SweptSource = "span" | "log";
export const telemetryKindOf = (source: SweptSource): TelemetryKind => (source === "span" ? "spans" : "logs");

export const toPipelineConfigOut = (config: PipelineConfig): PipelineConfigOut => ({
  id: config.id,
  created_at: config.createdAt,
  updated_at: config.updatedAt,
  deleted_at: null,
  scope: "workspace",
  workspace_id: config.workspace,
  name: config.name,
  description: config.description,
  slug: config.slug,
  group: config.group,
  pipeline_kind: config.pipelineKind,
  selectors: config.selectors.map((s) => ({ source_kind: s.source_kind, filter: s.filter })),
  enabled: config.enabled,
  definition_hash: config.definitionHash,
  definition: config.definition as Record<string, unknown>,
});

/** JSON with object keys sorted at every level: the same definition always has the same text (and hash). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** `definition_hash`: the SHA-256 (hex) of the canonical JSON of the definition. */
export const definitionHash = (definition: PipelineDefinition): string => createHash("sha256").update(canonicalJson(definition)).digest("hex");

const issue = (loc: (string | number)[], msg: string): ValidationIssue => ({ loc: loc.map(String), msg, type: "value_error" });

/** The kind's definition, or 422 at `body.definition…`: a definition of another kind, a missing or unknown field, a regex that is not RE2. */
export function checkDefinition(kind: PipelineKind, definition: Record<string, unknown>): PipelineDefinition {
  if (kind === "export") {
    // Checked in shape first, so a malformed destination is named as such; either way nothing is stored.
    const shaped = ExportDefinition.safeParse(definition);
    if (!shaped.success) throw new Unprocessable(shaped.error.issues.map((i) => issue(["body", "definition", ...(i.path as (string | number)[])], i.message)));
    throw observabilityError(
      422,
      "FEATURE_NOT_SUPPORTED",
      "This deployment does not run export pipelines (pipeline_kind 'export'): nothing would be exported, so the configuration is not stored. Export to an OTLP collector from your own process with the SDK's telemetry instead",
    );
  }
  const schema = kind === "detection" ? DetectionSchema : kind === "judge" ? JudgeSchema : ModerationSchema;
  const parsed = schema.safeParse(definition);
  if (!parsed.success) {
    throw new Unprocessable(parsed.error.issues.map((i) => issue(["body", "definition", ...(i.path as (string | number)[])], `${i.message} (a ${kind} definition is ${DEFINITION_SHAPES[kind]})`)));
  }
  if (kind === "detection") compilePatterns(parsed.data as DetectionDefinition);
  return parsed.data;
}

const DEFINITION_SHAPES: Record<Exclude<PipelineKind, "export">, string> = {
  detection: "{target_attributes, patterns: [{name, regex, category, confidence}]}",
  judge: "{model, prompt}",
  moderation: "{model?, target_attributes?}",
};

/** The telemetry kind a selector's filter is parsed for, or 422: `metric` sources have no store here. */
function sourceOf(selector: PipelineSelector, at: number): SweptSource {
  if (selector.source_kind === "span" || selector.source_kind === "log") return selector.source_kind;
  throw new Unprocessable([issue(["body", "selectors", at, "source_kind"], `source_kind '${selector.source_kind}' is not supported: this deployment stores no metrics; use 'span' or 'log'`)]);
}

/** The selectors as stored: each filter parses as a search expression of its source's catalogue (422 naming the position otherwise). */
export function checkSelectors(selectors: PipelineSelector[]): PipelineConfig["selectors"] {
  return selectors.map((selector, at) => {
    const source = sourceOf(selector, at);
    const filter = selector.filter?.trim() ? selector.filter : null;
    try {
      parseExpression(telemetryKindOf(source), filter);
    } catch (error) {
      if (error instanceof ExpressionError) throw new Unprocessable([issue(["body", "selectors", at, "filter"], `filter of a ${source} selector at position ${error.position}: ${error.problem}`)]);
      throw error;
    }
    return { source_kind: source, filter };
  });
}

/** The `route` of a sweep's model calls (their spans' `platform.route` starts with it). */
export const PIPELINE_ROUTE = "evaluation pipeline";

/** A sweep never evaluates the spans of sweeps' own model calls (a judge pipeline would otherwise judge its own judgements, sweep after sweep). */
const NOT_OWN_CALLS = parseExpression("spans", `NOT span_attributes['platform.route'] LIKE '${PIPELINE_ROUTE}%'`)!;

/** What a sweep reads of one source: the selectors of that source OR-ed (a selector without filter takes every record), spans of sweeps left out. */
export function sourceFilter(selectors: PipelineConfig["selectors"], source: SweptSource): Filter | undefined {
  const filters = selectors.filter((s) => s.source_kind === source).map((s) => parseExpression(telemetryKindOf(source), s.filter));
  const chosen = filters.length === 0 || filters.some((f) => f === undefined) ? undefined : filters.length === 1 ? filters[0] : { kind: "or" as const, items: filters as Filter[] };
  if (source === "log") return chosen;
  return chosen ? { kind: "and", items: [chosen, NOT_OWN_CALLS] } : NOT_OWN_CALLS;
}

/** The sources a configuration's selectors read, in a fixed order. */
export const sourcesOf = (config: Pick<PipelineConfig, "selectors">): SweptSource[] => (["span", "log"] as const).filter((s) => config.selectors.some((x) => x.source_kind === s));

// ---- detection ----

/** At most this much text of one record is scanned (all its targets together): a record's cost is bounded whatever it holds. */
export const MAX_SCANNED_CHARS = 200_000;

export interface CompiledPattern {
  name: string;
  category: string;
  confidence: string;
  matcher: RE2JS;
}

/**
 * The patterns compiled by RE2JS, a linear-time engine (no backtracking: no pattern can hang the process whatever the
 * text); a pattern RE2 does not accept (backreferences, lookaround) is a 422 naming it.
 */
export function compilePatterns(definition: DetectionDefinition): CompiledPattern[] {
  return definition.patterns.map((pattern, at) => {
    try {
      return { name: pattern.name, category: pattern.category, confidence: pattern.confidence, matcher: RE2JS.compile(pattern.regex) };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new Unprocessable([issue(["body", "definition", "patterns", at, "regex"], `not a regular expression this engine runs (RE2 syntax: no backreferences or lookaround): ${why}`)]);
    }
  });
}

export interface Detection {
  name: string;
  category: string;
  confidence: string;
  /** Where it was found: the target attribute's name. */
  target: string;
}

/** The patterns found in the targets' texts (each pattern at most once per target); the matched text is never kept (it may be what is being detected). */
export function detect(patterns: CompiledPattern[], texts: { target: string; text: string }[]): Detection[] {
  const found: Detection[] = [];
  for (const { target, text } of texts) {
    for (const p of patterns) if (p.matcher.matcher(text).find()) found.push({ name: p.name, category: p.category, confidence: p.confidence, target });
  }
  return found;
}

// ---- targets ----

const MESSAGE_COLUMNS = new Set(["input_messages", "output_messages"]);
const ATTRIBUTES: Record<SweptSource, string> = { span: "span_attributes", log: "log_attributes" };

/** What moderation reads when its definition names no targets: a span's conversation, a log's body. */
export const DEFAULT_MODERATION_TARGETS: Record<SweptSource, string[]> = { span: ["input_messages", "output_messages"], log: ["body"] };

/** GenAI messages as the judge and moderation read them: `role: text` lines (the raw value when it is not GenAI JSON). */
function messagesText(json: string): string {
  const messages = chatMessagesOf(json);
  return messages.length ? messages.map((m) => `${m.role}: ${m.content}`).join("\n") : json;
}

/**
 * The text a target names in a record (as the search routes answer it): a catalogue column (message columns as their
 * text), a MAP field's key in the expression's forms, a GenAI name, else a key of the record's attributes.
 */
export function targetText(source: SweptSource, record: Record<string, unknown>, target: string): string {
  // An attribute that has a span column of its own (OTLP ingest moves it there) is read from that column.
  const column = spanColumnOf(target) ?? target;
  let value: unknown;
  try {
    const ref = parseFieldRef(telemetryKindOf(source), column);
    const raw = record[ref.field.name];
    value = ref.key === undefined ? raw : (raw as Record<string, unknown> | undefined)?.[ref.key];
  } catch {
    value = (record[ATTRIBUTES[source]] as Record<string, unknown> | undefined)?.[target];
  }
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return MESSAGE_COLUMNS.has(column) ? messagesText(text) : text;
}

/** The targets' texts of a record, cut so that together they hold at most MAX_SCANNED_CHARS. */
export function targetTexts(source: SweptSource, record: Record<string, unknown>, targets: string[]): { target: string; text: string }[] {
  let left = MAX_SCANNED_CHARS;
  const out: { target: string; text: string }[] = [];
  for (const target of targets) {
    if (left <= 0) break;
    const text = targetText(source, record, target).slice(0, left);
    left -= text.length;
    if (text) out.push({ target, text });
  }
  return out;
}

// ---- evaluations ----

/** What one kind's action found in one record, before it is filed as a span evaluation. */
export interface Outcome {
  score_value: number;
  score_label: string;
  explanation: string;
  metadata: Record<string, string>;
}

export function detectionOutcome(found: Detection[]): Outcome {
  const names = [...new Set(found.map((d) => d.name))];
  return {
    score_value: found.length,
    score_label: found.length ? "detected" : "clean",
    explanation: found.length ? found.map((d) => `${d.name} (${d.category}, ${d.confidence}) in ${d.target}`).join("; ") : "No pattern matched",
    metadata: { patterns: names.join(","), categories: [...new Set(found.map((d) => d.category))].join(",") },
  };
}

/** The highest category score of the targets' results, and the categories the model flagged. */
export function moderationOutcome(model: string, results: ModerationScores[]): Outcome {
  const flagged = new Set<string>();
  let top = 0;
  let topCategory = "";
  for (const result of results) {
    for (const [category, on] of Object.entries(result.categories)) if (on) flagged.add(category);
    for (const [category, score] of Object.entries(result.categoryScores)) {
      if (score > top) [top, topCategory] = [score, category];
    }
  }
  const categories = [...flagged].sort();
  return {
    score_value: top,
    score_label: categories.length ? "flagged" : "clean",
    explanation: categories.length ? `Flagged: ${categories.join(", ")}` : topCategory ? `Not flagged (highest: ${topCategory} ${top})` : "Not flagged",
    metadata: { moderation_model: model, categories: categories.join(",") },
  };
}

/**
 * The judge a judge pipeline runs (shared/services/observability/judging.ts `runJudge`): the prompt as its instructions
 * and a score from 0 (the prompt's criteria not met) to 1 (fully met).
 */
export const judgeOfPipeline = (config: Pick<PipelineConfig, "name" | "description">, definition: JudgePipelineDefinition) => ({
  name: config.name,
  description: config.description ?? "",
  model_name: definition.model,
  instructions: definition.prompt,
  output: { type: "REGRESSION" as const, min: 0, min_description: "the criteria are not met at all", max: 1, max_description: "the criteria are fully met" },
  tools: [] as string[],
});

/** The span evaluation a pipeline writes for a record: named after the pipeline, filed under the record's span. */
export function pipelineEvaluation(config: PipelineConfig, source: SweptSource, record: Record<string, unknown>, outcome: Outcome, timestamp: string): SpanEvaluationRow {
  const str = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : "");
  return {
    customer_id: config.organization,
    organization_id: config.organization,
    workspace_id: config.workspace,
    user_id: config.ownerId,
    trace_id: str("trace_id"),
    span_id: str("span_id"),
    response_id: str("response_id"),
    conversation_id: str("conversation_id"),
    timestamp,
    evaluation_name: config.name,
    score_value: outcome.score_value,
    score_label: outcome.score_label,
    explanation: outcome.explanation,
    metadata: {
      source: "evaluation_pipeline",
      pipeline_config_id: config.id,
      pipeline_kind: config.pipelineKind,
      definition_hash: config.definitionHash,
      source_kind: source,
      ...outcome.metadata,
    },
  };
}

/** The caller a sweep acts as: the configuration's owner in its workspace, with no key of its own (a model call's usage is counted as theirs). */
export const pipelineCaller = (config: PipelineConfig): Caller => ({
  organization: config.organization,
  workspace: config.workspace,
  principal: config.ownerId,
  principalType: "user",
  roles: [],
  admin: false,
  keyId: "evaluation-pipeline",
});

// ---- the watermark ----

/** Where a source's sweep stopped: the last record's instant and its page id (the search's keyset order). */
export interface Watermark {
  time: string;
  id: string;
}

/** A new configuration starts at its creation: it evaluates what arrives after it, not the retention period's history. */
export const initialWatermark = (config: Pick<PipelineConfig, "createdAt">): Watermark => ({ time: config.createdAt, id: "" });

/** Whether `next` is past `current` in the search's ascending (time, id) order: a watermark only moves forward. */
export function isAfter(next: Watermark, current: Watermark): boolean {
  const a = Date.parse(next.time);
  const b = Date.parse(current.time);
  return a > b || (a === b && next.id > current.id);
}

export const pipelineNotFound = (id: string) => observabilityError(404, "PIPELINE_CONFIG_NOT_FOUND", `No pipeline configuration with id '${id}' exists in this workspace`);
export const pipelineChangedMeanwhile = (id: string) => observabilityError(409, "PIPELINE_CONFIG_CONFLICT", `Pipeline configuration '${id}' kept changing while this change was applied; read it again and retry`);
export const pipelineBusy = (id: string) => observabilityError(409, "PIPELINE_RUN_IN_PROGRESS", `A sweep of pipeline configuration '${id}' is running; try again when it is over`);

export type { DetectionDefinition, JudgePipelineDefinition, ModerationDefinition, SourceKind };
