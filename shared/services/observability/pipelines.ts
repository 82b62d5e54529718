/**
 * Evaluation pipeline configurations (`/v1/observability/pipeline-configs…`; docs/observability/pipelines.md,
 * decision 65): a workspace's detection, moderation and judge pipelines, created, listed, read, replaced and deleted
 * by id, and swept: each sweep reads the records of the workspace that match the pipeline's selectors and arrived
 * after its watermark (through the search routes' builder and engine), runs the kind's action on each, writes the
 * result as a span evaluation (as live judging writes one), and advances the watermark while it holds the sweep's
 * lease. Sweeps run every few minutes for enabled pipelines (`sweepEnabledPipelines`, an engine task in the cloud and
 * a timer of `npm start`) and on demand (`runPipelineConfig`).
 */
import { randomUUID } from "node:crypto";
import { telemetryRetentionDays } from "../../config.js";
import type { Caller } from "../../domain/caller.js";
import { asApiError, BadRequest, Unprocessable } from "../../domain/errors.js";
import { payloadOfSpan } from "../../domain/observability/datasets.js";
import { piecesWithin } from "../../domain/guardrails.js";
import { recordText } from "../../domain/observability/judging.js";
import { requireEndpoint } from "../../domain/models.js";
import { observabilityError, pageLinks } from "../../domain/observability/datasets.js";
import {
  checkDefinition,
  checkSelectors,
  compilePatterns,
  DEFAULT_MODERATION_TARGETS,
  definitionHash,
  detect,
  detectionOutcome,
  initialWatermark,
  isAfter,
  judgeOfPipeline,
  moderationOutcome,
  pipelineBusy,
  pipelineCaller,
  pipelineChangedMeanwhile,
  pipelineEvaluation,
  pipelineNotFound,
  PIPELINE_ROUTE,
  sourceFilter,
  sourcesOf,
  targetTexts,
  telemetryKindOf,
  toPipelineConfigOut,
  type DetectionDefinition,
  type JudgePipelineDefinition,
  type ModerationDefinition,
  type Outcome,
  type PipelineConfig,
  type SweptSource,
} from "../../domain/observability/pipelines.js";
import type { SpanRow } from "../../domain/observability/records.js";
import type { CreatePipelineConfigBody, PipelineConfigListOut, PipelineConfigListQuery, PipelineConfigOut, PipelineRunOut, UpdatePipelineConfigBody } from "../../schemas/observability/pipelines.js";
import { logger } from "../../observability/logger.js";
import { pipelineStore, type StoredPipelineConfig } from "../../store/observability/pipelines.js";
import { moderateTexts } from "../inference/moderation-calls.js";
import type { CallContext } from "../inference/usage.js";
import { bodyModel } from "../models/catalog.js";
import { telemetryAfter } from "./engine.js";
import { runJudge } from "./judging.js";
import { recordSpanEvaluation } from "./span-writer.js";

/** Tries of an update or a delete that meets a concurrent change of the same configuration before it answers 409. */
const ATTEMPTS = 3;
/** Records one source of one pipeline takes per sweep (`PIPELINE_SWEEP_LIMIT` overrides it): the rest wait for the next sweep. */
export const sweepLimit = () => Number(process.env.PIPELINE_SWEEP_LIMIT ?? 100);
/**
 * How long after its start a record is first swept (`PIPELINE_SETTLE_SECONDS`, default 60): a span is written when its
 * call ends, so a sweep leaves the last minute for calls still running (a call longer than that may be passed over).
 */
const settleMs = () => Number(process.env.PIPELINE_SETTLE_SECONDS ?? 60) * 1000;
/** A sweep's lease outlives the longest sweep (a Lambda's 15 minutes): a crashed sweep's lease expires, and the next takes over. */
const LEASE_MS = 15 * 60_000;
/** An on-demand run stops taking records after this, under API Gateway's 29 s. */
const ON_DEMAND_MS = 20_000;
const MAX_REPORTED_FAILURES = 20;

const now = () => new Date().toISOString();

async function configOf(caller: Caller, id: string): Promise<StoredPipelineConfig> {
  const config = await pipelineStore.get(caller.workspace, id.toLowerCase());
  if (!config) throw pipelineNotFound(id);
  return config;
}

/** The definition's model serves what the kind needs (a judge chats, moderation moderates), or 422 at `at`. */
async function checkModel(caller: Pick<Caller, "workspace" | "models">, model: string, endpoint: "chat" | "moderations", at: string[] | undefined): Promise<string> {
  try {
    const entry = await bodyModel(caller, model);
    requireEndpoint(entry, endpoint);
    return entry.id;
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error;
    if (at) throw new Unprocessable([{ loc: at, msg: error.message, type: "value_error" }]);
    throw observabilityError(422, "VALIDATION_ERROR", `The pipeline's definition.model cannot run: ${error.message}. Update the pipeline with a model of the catalog`);
  }
}

/** The body as stored: selectors parsed for their sources, the definition checked against the kind, its model in the catalog. */
async function configFields(caller: Caller, body: CreatePipelineConfigBody | UpdatePipelineConfigBody) {
  const selectors = checkSelectors(body.selectors);
  const definition = checkDefinition(body.pipeline_kind, body.definition);
  const model = ["body", "definition", "model"];
  if (body.pipeline_kind === "judge") await checkModel(caller, (definition as JudgePipelineDefinition).model, "chat", model);
  if (body.pipeline_kind === "moderation") await checkModel(caller, (definition as ModerationDefinition).model, "moderations", model);
  return {
    name: body.name,
    description: body.description ?? null,
    slug: body.slug ?? null,
    group: body.group ?? null,
    pipelineKind: body.pipeline_kind as PipelineConfig["pipelineKind"],
    selectors,
    enabled: body.enabled,
    definition,
    definitionHash: definitionHash(definition),
  };
}

export async function createPipelineConfig(caller: Caller, body: CreatePipelineConfigBody): Promise<PipelineConfigOut> {
  const fields = await configFields(caller, body);
  const at = now();
  const config: PipelineConfig = { workspace: caller.workspace, organization: caller.organization, id: randomUUID(), ownerId: caller.principal, createdAt: at, updatedAt: at, ...fields };
  await pipelineStore.create(config);
  return toPipelineConfigOut(config);
}

export async function listPipelineConfigs(caller: Caller, query: PipelineConfigListQuery): Promise<PipelineConfigListOut> {
  const filter = { kind: query.pipeline_kind, group: query.group, enabled: query.enabled, q: query.q || undefined };
  const { configs, count } = await pipelineStore.page(caller.workspace, filter, (query.page - 1) * query.page_size, query.page_size);
  const extra = { pipeline_kind: filter.kind, group: filter.group, enabled: filter.enabled === undefined ? undefined : String(filter.enabled), q: filter.q };
  return { pipeline_configs: { results: configs.map(toPipelineConfigOut), count, ...pageLinks("/v1/observability/pipeline-configs", query.page, query.page_size, count, extra) } };
}

export const getPipelineConfig = async (caller: Caller, id: string): Promise<PipelineConfigOut> => toPipelineConfigOut(await configOf(caller, id));

/**
 * Replaces the whole configuration (PUT), `enabled` included; its id, owner, creation and sweep watermark stay (a
 * changed definition applies to the records that arrive after the watermark).
 */
export async function updatePipelineConfig(caller: Caller, id: string, body: UpdatePipelineConfigBody): Promise<PipelineConfigOut> {
  // The id first: another workspace's (or an unknown) configuration is a 404 whatever the body says.
  await configOf(caller, id);
  const fields = await configFields(caller, body);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const current = await configOf(caller, id);
    const { revision: _revision, ...kept } = current;
    const next: PipelineConfig = { ...kept, ...fields, updatedAt: now() };
    if (await pipelineStore.replace(current, next)) return toPipelineConfigOut(next);
    // Changed or deleted meanwhile: read it again (a deleted configuration is a 404 there).
  }
  throw pipelineChangedMeanwhile(id);
}

export async function deletePipelineConfig(caller: Caller, id: string): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (await pipelineStore.remove(await configOf(caller, id))) return;
  }
  throw pipelineChangedMeanwhile(id);
}

// ---- sweeps ----

type Action = (source: SweptSource, record: Record<string, unknown>) => Promise<Outcome>;

/** The kind's action on one record, its model checked once per sweep. */
async function actionOf(ctx: CallContext, config: PipelineConfig): Promise<Action> {
  switch (config.pipelineKind) {
    case "detection": {
      const definition = config.definition as DetectionDefinition;
      const patterns = compilePatterns(definition);
      return async (source, record) => detectionOutcome(detect(patterns, targetTexts(source, record, definition.target_attributes)));
    }
    case "moderation": {
      const definition = config.definition as ModerationDefinition;
      const model = await checkModel(ctx.caller, definition.model, "moderations", undefined);
      return async (source, record) => {
        const texts = targetTexts(source, record, definition.target_attributes ?? DEFAULT_MODERATION_TARGETS[source]).map((t) => t.text);
        if (texts.length === 0) return { score_value: 0, score_label: "clean", explanation: "Nothing to moderate: the targets are empty", metadata: { moderation_model: model, categories: "" } };
        // Each text cut to the model's context, as guardrails cut a conversation; a key's limits apply as on /v1/moderations.
        const moderated = await moderateTexts(ctx, model, (entry) => texts.flatMap((text) => piecesWithin(text, entry.maxContextLength - 1)));
        return moderationOutcome(moderated.model, moderated.results);
      };
    }
    case "judge": {
      const definition = config.definition as JudgePipelineDefinition;
      const model = await checkModel(ctx.caller, definition.model, "chat", undefined);
      const judge = judgeOfPipeline(config, definition);
      return async (source, record) => {
        const text = source === "span" ? recordText(payloadOfSpan(record as unknown as SpanRow)) : `log (${String(record.severity_text)}): ${String(record.body)}\n\nattributes: ${JSON.stringify(record.log_attributes ?? {})}`;
        const judgement = await runJudge(ctx, judge, model, { name: source === "span" ? "model call" : "log record", text: text.slice(0, 200_000) });
        return { score_value: Number(judgement.answer), score_label: "", explanation: judgement.analysis, metadata: { judge_model: model } };
      };
    }
  }
}

/** A failure worth trying again at the next sweep (throttled, the backend down or slow) rather than passing the record over. */
const isTransient = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * One sweep of one configuration: under its lease, per source, up to the sweep's bound of the records after the
 * watermark (oldest first), each evaluated and filed, then the watermark moved past them. A record whose action
 * fails for good is counted and passed over; a transient failure stops the source there, to be tried again.
 * Undefined when another sweep holds the lease.
 */
async function sweep(ctx: CallContext, config: PipelineConfig, deadline: number): Promise<PipelineRunOut | undefined> {
  const token = randomUUID();
  const started = Date.now();
  const mark = await pipelineStore.lease(config.workspace, config.id, token, started, started + LEASE_MS);
  if (!mark) return undefined;
  const out: PipelineRunOut = { pipeline_config_id: config.id, spans_read: 0, logs_read: 0, evaluations_written: 0, failed: 0, failures: [], has_more: false };
  try {
    const act = await actionOf(ctx, config);
    const to = new Date(started - settleMs()).toISOString();
    for (const source of sourcesOf(config)) {
      const watermark = mark.watermarks[source] ?? initialWatermark(config);
      if (Date.parse(watermark.time) >= Date.parse(to)) continue;
      const filter = sourceFilter(config.selectors, source);
      const limit = sweepLimit();
      // Nothing older than the retention is kept: a pipeline swept again after months scans the kept days only.
      const kept = new Date(started - telemetryRetentionDays() * 86_400_000).toISOString();
      const from = Date.parse(watermark.time) > Date.parse(kept) ? watermark.time : kept;
      const rows = await telemetryAfter(config.workspace, telemetryKindOf(source), filter, { from, to }, watermark, limit + 1);
      if (rows.length > limit) out.has_more = true;
      let last: (typeof rows)[number]["key"] | undefined;
      for (const { record, key } of rows.slice(0, limit)) {
        if (Date.now() > deadline) {
          out.has_more = true;
          break;
        }
        try {
          const outcome = await act(source, record);
          await recordSpanEvaluation(pipelineEvaluation(config, source, record, outcome, now()));
          out.evaluations_written += 1;
        } catch (error) {
          if (ctx.signal?.aborted) throw error;
          const failure = asApiError(error);
          if (out.failures.length < MAX_REPORTED_FAILURES) out.failures.push({ source_kind: source, trace_id: String(record.trace_id ?? ""), span_id: String(record.span_id ?? ""), message: failure.message });
          // The status and code only: a backend's message may quote the record.
          logger.warn("evaluation pipeline record failed", { pipeline: config.id, status: failure.status, code: failure.code ?? "" });
          if (isTransient(failure.status)) {
            out.has_more = true;
            break;
          }
          out.failed += 1;
        }
        if (source === "span") out.spans_read += 1;
        else out.logs_read += 1;
        last = key;
      }
      if (last && isAfter(last, watermark) && !(await pipelineStore.advance(config.workspace, config.id, token, source, last))) break;
    }
  } finally {
    await pipelineStore.release(config.workspace, config.id, token);
  }
  return out;
}

/** `POST …/{pipeline_config_id}/run`: one sweep now, enabled or not, with the caller's key (its model limits apply). */
export async function runPipelineConfig(ctx: CallContext, id: string): Promise<PipelineRunOut> {
  const { revision: _revision, ...config } = await configOf(ctx.caller, id);
  const ran = await sweep({ ...ctx, route: `${PIPELINE_ROUTE} ${ctx.route}` }, config, Date.now() + ON_DEMAND_MS);
  if (!ran) throw pipelineBusy(id);
  return ran;
}

export interface SweepSummary {
  pipelines: number;
  evaluationsWritten: number;
  failed: number;
  /** Skipped: another sweep held the lease, the configuration went or was turned off meanwhile, or its model cannot run. */
  skipped: number;
}

/**
 * The periodic sweep: every enabled configuration of every workspace, once, as its owner, until `deadline` (ms since
 * the epoch); what is left waits for the next period. A configuration's failure never stops the others.
 */
export async function sweepEnabledPipelines(deadline: number): Promise<SweepSummary> {
  const summary: SweepSummary = { pipelines: 0, evaluationsWritten: 0, failed: 0, skipped: 0 };
  let page: Awaited<ReturnType<typeof pipelineStore.enabledPage>> | undefined;
  do {
    page = await pipelineStore.enabledPage(page?.next);
    for (const entry of page.entries) {
      if (Date.now() > deadline) return summary;
      const stored = await pipelineStore.get(entry.workspace, entry.id);
      if (!stored?.enabled) {
        summary.skipped += 1;
        continue;
      }
      const { revision: _revision, ...config } = stored;
      const ctx: CallContext = { caller: pipelineCaller(config), requestId: `pipeline-${randomUUID()}`, route: `${PIPELINE_ROUTE} sweep` };
      try {
        const ran = await sweep(ctx, config, deadline);
        if (!ran) summary.skipped += 1;
        else {
          summary.pipelines += 1;
          summary.evaluationsWritten += ran.evaluations_written;
          summary.failed += ran.failed;
        }
      } catch (error) {
        summary.skipped += 1;
        const failure = asApiError(error);
        logger.warn("evaluation pipeline sweep failed", { pipeline: config.id, status: failure.status, code: failure.code ?? "" });
      }
    }
  } while (page.next);
  return summary;
}
