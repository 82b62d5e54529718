/**
 * Live judging (`POST /v1/observability/dataset-records/{id}/live-judging`, docs/observability/datasets.md):
 * the judge definition runs against the record's payload through the platform's model providers (the chat
 * path every model call takes: catalog, spend limit, usage), with a structured output the judge's answers
 * alone satisfy; the answer is checked, asked once more when it is not one the judge allows, and stored as a
 * span evaluation. A saved judge judging a conversation (shared/services/observability/judges.ts) runs through
 * `runJudge` too.
 */
import { ApiError, BadRequest, Unprocessable, UpstreamError } from "../../domain/errors.js";
import { evaluationOf, checkJudge, judgeMessages, judgeSchema, parseJudgement, recordText, type JudgeSubject } from "../../domain/observability/judging.js";
import { observabilityError } from "../../domain/observability/datasets.js";
import { ChatCompletionRequest } from "../../schemas/inference.js";
import type { JudgeDefinition, JudgeOut } from "../../schemas/observability/datasets.js";
import * as completions from "../inference/completions.js";
import type { CallContext } from "../inference/usage.js";
import { requireBodyModel } from "../models/catalog.js";
import { recordOf } from "./datasets.js";
import { recordSpanEvaluation } from "./span-writer.js";

/** Tries per judgement: the first answer, and one more when it is not one the judge allows. */
const ATTEMPTS = 2;

/**
 * How long the judge's model calls may take together: under API Gateway's 29 s for a buffered answer, so a slow
 * model gets the observability family's 504 JUDGE_MISTRAL_API_TIMEOUT rather than the gateway's own. `JUDGE_DEADLINE_MS`
 * overrides it (tests).
 */
const deadlineMs = () => Number(process.env.JUDGE_DEADLINE_MS ?? 25_000);

/**
 * The model named by the judge, or 422 naming `model_name` at `at` (unknown, archived, or no chat model); a saved
 * judge's (`at` null: its model is not in the body) is a 422 VALIDATION_ERROR saying to update the judge.
 */
export async function judgeModel(ctx: Pick<CallContext, "caller">, name: string, at: string[] | null = ["body", "judge_definition", "model_name"]): Promise<string> {
  try {
    return (await requireBodyModel(ctx.caller, name, "chat")).id;
  } catch (error) {
    if (!(error instanceof BadRequest)) throw error;
    if (at) throw new Unprocessable([{ loc: at, msg: error.message, type: "value_error" }]);
    throw observabilityError(422, "VALIDATION_ERROR", `The judge's model_name cannot run: ${error.message}. Update the judge with a chat model of the catalog`);
  }
}

/** A model backend's failure in the judge's terms: JUDGE_MISTRAL_API_TIMEOUT on a timeout, JUDGE_MISTRAL_API_ERROR otherwise. */
function asJudgeFailure(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const code = error.status === 504 ? "JUDGE_MISTRAL_API_TIMEOUT" : "JUDGE_MISTRAL_API_ERROR";
  return new ApiError(error.status, error.type, error.message, error.code, null, { headers: error.headers, familyCodes: { observability: code } });
}

/**
 * The judgement of `subject` by a checked judge on its model: the chat path with the judge's structured output,
 * asked once more when the answer is not one the judge allows, within the judge's deadline.
 */
export async function runJudge(ctx: CallContext, judge: JudgeDefinition, model: string, subject: JudgeSubject): Promise<JudgeOut> {
  const request = ChatCompletionRequest.parse({
    model,
    messages: judgeMessages(judge, subject),
    temperature: 0,
    response_format: { type: "json_schema", json_schema: { name: "judge_output", schema: judgeSchema(judge.output), strict: true } },
    // The judge reads recorded traffic, harmful content included: the workspace's default guardrails are not its.
    guardrails: [],
  });
  const deadline = AbortSignal.timeout(deadlineMs());
  const call: CallContext = { ...ctx, signal: ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline };
  let judgement: JudgeOut | undefined;
  for (let attempt = 0; attempt < ATTEMPTS && !judgement; attempt += 1) {
    let answer: Awaited<ReturnType<typeof completions.chat>>;
    try {
      answer = await completions.chat(call, request);
    } catch (error) {
      if (deadline.aborted && !ctx.signal?.aborted) throw observabilityError(504, "JUDGE_MISTRAL_API_TIMEOUT", `The judge's model did not answer within ${deadlineMs() / 1000} s`);
      throw asJudgeFailure(error);
    }
    if (answer.kind !== "answer") throw new Error("The judge's model answered with a stream");
    judgement = parseJudgement(judge.output, answer.body.choices[0]?.message.content);
  }
  if (!judgement) throw observabilityError(502, "JUDGE_MISTRAL_API_ERROR", `The judge's model (${model}) answered ${ATTEMPTS} times with no answer the judge allows`);
  return judgement;
}

export async function judgeRecord(ctx: CallContext, recordId: string, judge: JudgeDefinition): Promise<JudgeOut> {
  // The record first: another workspace's id is a 404 whatever the judge says.
  const record = await recordOf(ctx.caller, recordId);
  checkJudge(judge);
  const model = await judgeModel(ctx, judge.model_name);
  const judgement = await runJudge(ctx, judge, model, { name: "dataset record", text: recordText(record.payload) });
  // Stored as a span evaluation: appended for search, and counted on its trace for point reads.
  await recordSpanEvaluation(evaluationOf(ctx.caller, record, judge, model, judgement, new Date().toISOString()));
  return judgement;
}
