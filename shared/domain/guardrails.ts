import type { GuardrailConfig } from "../schemas/guardrails.js";
import { ApiError } from "./errors.js";

/**
 * Guardrails (Mistral's `GuardrailConfig`, docs/routing.md "Guardrails", decision 0059): moderation checks a chat
 * call's input must pass before the model sees it. The rules here are pure; shared/services/inference/guardrails.ts
 * runs the moderation models and applies them.
 */

export type GuardrailCheckName = "moderation_llm_v1" | "moderation_llm_v2";
const CHECK_NAMES: readonly GuardrailCheckName[] = ["moderation_llm_v1", "moderation_llm_v2"];

/** One moderation check of one config, in the order the list gives them (a config's v1 before its v2). */
export interface GuardrailCheck {
  /** Its config's place in the list (`guardrails[config]`). */
  config: number;
  name: GuardrailCheckName;
  /** The moderation model that scores the input (`model_name`). */
  model: string;
  /** The custom thresholds the config sets (categories given as null are left out). */
  thresholds: Record<string, number>;
  ignoreOtherCategories: boolean;
  action: "none" | "block";
  /** The config's `block_on_error`. */
  blockOnError: boolean;
}

/** What a moderation model says of an input (one result of /v1/moderations). */
export interface ModerationScores {
  categories: Record<string, boolean>;
  categoryScores: Record<string, number>;
}

/** A category over its limit: its score, and the custom threshold it reached (null: the model's own flag). */
export interface Crossing {
  category: string;
  score: number;
  threshold: number | null;
}

export type Verdict =
  | { check: GuardrailCheck; outcome: "passed" }
  /** Crossed, but the check's action is `none`: recorded, never blocking. */
  | { check: GuardrailCheck; outcome: "flagged"; crossings: Crossing[] }
  | { check: GuardrailCheck; outcome: "blocked"; crossings: Crossing[] }
  /** The moderation call failed; `blocks` when the config says `block_on_error` and the check could block. */
  | { check: GuardrailCheck; outcome: "failed"; blocks: boolean };

/** Every check the configs ask for, in order; a config with neither check asks for nothing. */
export function checksOf(configs: readonly GuardrailConfig[]): GuardrailCheck[] {
  return configs.flatMap((config, index) =>
    CHECK_NAMES.flatMap((name) => {
      const check = config[name];
      if (!check) return [];
      const thresholds = Object.fromEntries(Object.entries(check.custom_category_thresholds ?? {}).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
      return [{ config: index, name, model: check.model_name, thresholds, ignoreOtherCategories: check.ignore_other_categories, action: check.action, blockOnError: config.block_on_error }];
    }),
  );
}

/**
 * The categories over their limits: a category with a custom threshold crosses when its score reaches it (≥); the
 * others when the model flags them, unless `ignore_other_categories` leaves only the custom ones. A custom threshold
 * for a category the model does not score (a v2 category scored by a v1 model) never crosses.
 */
export function crossingsOf(check: Pick<GuardrailCheck, "thresholds" | "ignoreOtherCategories">, scores: ModerationScores): Crossing[] {
  const categories = [...new Set([...Object.keys(scores.categoryScores), ...Object.keys(scores.categories)])];
  return categories.flatMap((category): Crossing[] => {
    const score = scores.categoryScores[category] ?? 0;
    const threshold = check.thresholds[category];
    if (threshold !== undefined) return typeof scores.categoryScores[category] === "number" && score >= threshold ? [{ category, score, threshold }] : [];
    if (check.ignoreOtherCategories) return [];
    return scores.categories[category] === true ? [{ category, score, threshold: null }] : [];
  });
}

/** The verdict of one check on the model's scores, or on the failure of its moderation call. */
export function verdictOf(check: GuardrailCheck, scores: ModerationScores | "failed"): Verdict {
  // A check whose action is `none` only watches: it blocks on nothing, not even on its own failure.
  if (scores === "failed") return { check, outcome: "failed", blocks: check.blockOnError && check.action === "block" };
  const crossings = crossingsOf(check, scores);
  if (crossings.length === 0) return { check, outcome: "passed" };
  return { check, outcome: check.action === "block" ? "blocked" : "flagged", crossings };
}

/** The verdict that stops the call: the first, in the list's order, that blocks. */
export function blockingVerdict(verdicts: readonly Verdict[]): Verdict | undefined {
  return verdicts.find((v) => v.outcome === "blocked" || (v.outcome === "failed" && v.blocks));
}

/**
 * Several results of one model as one (a long conversation moderated in pieces): each category's highest score,
 * flagged where any piece was.
 */
export function mergedScores(results: readonly ModerationScores[]): ModerationScores {
  const merged: ModerationScores = { categories: {}, categoryScores: {} };
  for (const result of results) {
    for (const [category, score] of Object.entries(result.categoryScores)) merged.categoryScores[category] = Math.max(merged.categoryScores[category] ?? Number.NEGATIVE_INFINITY, score);
    for (const [category, flagged] of Object.entries(result.categories)) merged.categories[category] = (merged.categories[category] ?? false) || flagged;
  }
  return merged;
}

/**
 * The text cut into pieces of at most `maxBytes` UTF-8 bytes, on character boundaries: a piece of n bytes has at most
 * n + 1 tokens, so pieces of (context − 1) bytes each fit a moderation model's context, and no part of a long
 * conversation goes unchecked.
 */
export function piecesWithin(text: string, maxBytes: number): string[] {
  const limit = Math.max(4, Math.floor(maxBytes));
  if (Buffer.byteLength(text) <= limit) return [text];
  const pieces: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.codePointAt(i)!;
    const width = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    const units = code >= 0x10000 ? 2 : 1;
    if (bytes + width > limit) {
      pieces.push(text.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += width;
    i += units;
  }
  pieces.push(text.slice(start));
  return pieces;
}

const rounded = (score: number) => String(Number(score.toFixed(4)));

/** `violence_and_threats=1,selfharm=0.91`: the crossed categories and their scores (no content). */
const crossingList = (crossings: readonly Crossing[]) => crossings.map((c) => `${c.category}=${rounded(c.score)}`).join(",");

const crossingWords = (crossings: readonly Crossing[]) =>
  crossings.map((c) => `${c.category} ${rounded(c.score)} (${c.threshold === null ? "flagged by the model" : `threshold ${c.threshold}`})`).join(", ");

/**
 * A call a guardrail stopped: 403, in the platform's error envelope. `guardrail_blocked` when a category crossed its
 * limit, `guardrail_unavailable` when a check could not be evaluated and its config says `block_on_error`. The
 * message names the check and the categories with their scores, never the input.
 */
export class GuardrailBlocked extends ApiError {
  constructor(readonly verdict: Verdict) {
    const { check } = verdict;
    const where = `${check.name} of guardrails[${check.config}] (model ${check.model})`;
    const message =
      verdict.outcome === "blocked"
        ? `The request was blocked by guardrail ${where}: ${crossingWords(verdict.crossings)}`
        : `The request was blocked: guardrail ${where} could not be evaluated and its block_on_error is true`;
    super(403, "permission_error", message, verdict.outcome === "blocked" ? "guardrail_blocked" : "guardrail_unavailable");
  }
}

/**
 * What the call's span says of its guardrails: every check's outcome (`platform.guardrail.verdicts`), and for the
 * check that blocked the call, its name, model and crossed categories with their scores.
 */
export function guardrailAttributes(verdicts: readonly Verdict[]): Record<string, string> {
  if (verdicts.length === 0) return {};
  const summary = verdicts.map((v) => ({
    config: v.check.config,
    check: v.check.name,
    model: v.check.model,
    action: v.check.action,
    outcome: v.outcome,
    ...(v.outcome === "blocked" || v.outcome === "flagged" ? { categories: crossingList(v.crossings) } : {}),
  }));
  const blocking = blockingVerdict(verdicts);
  return {
    "platform.guardrail.verdicts": JSON.stringify(summary),
    ...(blocking
      ? {
          "platform.guardrail.check": blocking.check.name,
          "platform.guardrail.config": String(blocking.check.config),
          "platform.guardrail.model": blocking.check.model,
          "platform.guardrail.outcome": blocking.outcome,
          ...(blocking.outcome === "blocked" ? { "platform.guardrail.categories": crossingList(blocking.crossings) } : {}),
        }
      : {}),
  };
}
