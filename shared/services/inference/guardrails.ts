import { conversationText } from "../../domain/classifiers.js";
import { asApiError } from "../../domain/errors.js";
import { blockingVerdict, checksOf, GuardrailBlocked, guardrailAttributes, mergedScores, piecesWithin, verdictOf, type ModerationScores } from "../../domain/guardrails.js";
import type { GuardrailConfig } from "../../schemas/guardrails.js";
import type { Message } from "../../schemas/inference.js";
import { logger } from "../../observability/logger.js";
import { cachedWorkspace } from "../identity/workspace-cache.js";
import { moderateTexts } from "./moderation-calls.js";
import type { CallContext } from "./usage.js";

/**
 * Guardrails bound to the moderation models (docs/routing.md, "Guardrails"; decision 0059). A chat call's checks run
 * on its input before the model is called: each through the same routed path as /v1/moderations, with its own usage
 * record. The rules are shared/domain/guardrails.ts.
 */

/**
 * The guardrails a call runs: its own when it names any (an empty list too: it turns the default off), else its
 * workspace's `default_guardrails`. The workspace is read through the process cache every model call's span already
 * reads it through, so a call without guardrails pays nothing.
 */
export async function guardrailsFor(ctx: Pick<CallContext, "caller">, own: readonly GuardrailConfig[] | null | undefined): Promise<readonly GuardrailConfig[]> {
  if (own) return own;
  return (await cachedWorkspace(ctx.caller))?.defaultGuardrails ?? [];
}

/** Whether the configs ask for any check at all (a config with neither check asks for none). */
export const anyChecks = (configs: readonly GuardrailConfig[]): boolean => checksOf(configs).length > 0;

/**
 * Runs every check on the conversation, and throws GuardrailBlocked (403) when one blocks. A model named by several
 * checks is called once; the models are called together. `note` receives the span attributes of the verdicts
 * before anything is thrown.
 */
export async function enforceGuardrails(ctx: CallContext, configs: readonly GuardrailConfig[], messages: readonly Message[], note: (attributes: Record<string, string>) => void): Promise<void> {
  const checks = checksOf(configs);
  if (checks.length === 0) return;
  // What /v1/chat/moderations reads of a conversation: every message, so a request spread over turns is seen whole.
  const text = conversationText(messages);
  const scored = new Map<string, Promise<ModerationScores | "failed">>();
  for (const check of checks) if (!scored.has(check.model)) scored.set(check.model, scoresOf(ctx, check.model, text));
  const verdicts = await Promise.all(checks.map(async (check) => verdictOf(check, await scored.get(check.model)!)));
  note(guardrailAttributes(verdicts));
  const blocking = blockingVerdict(verdicts);
  if (blocking) throw new GuardrailBlocked(blocking);
}

/** The model's scores of the text (cut to its context, each piece scored, the highest kept), or "failed". */
async function scoresOf(ctx: CallContext, model: string, text: string): Promise<ModerationScores | "failed"> {
  try {
    const moderated = await moderateTexts(ctx, model, (entry) => piecesWithin(text, entry.maxContextLength - 1), { keyLimits: false });
    return mergedScores(moderated.results);
  } catch (error) {
    // A caller that went away ends the call; any other failure is the check's, and its config decides.
    if (ctx.signal?.aborted) throw error;
    const failure = asApiError(error);
    // The status and code only: an upstream's message may quote the input.
    logger.warn("guardrail check failed", { model, status: failure.status, code: failure.code ?? "" });
    return "failed";
  }
}
