/**
 * Live judging of a dataset record (docs/observability/datasets.md, decision 41): the judge's prompt and the
 * JSON schema its answer must follow, the check that the answer is one the judge allows, and the span
 * evaluation that records it. Pure: shared/services/observability/judging.ts calls the model and stores.
 */
import type { Caller } from "../caller.js";
import { Unprocessable } from "../errors.js";
import type { JudgeDefinition, JudgeOut } from "../../schemas/observability/datasets.js";
import { observabilityError, type DatasetRecord } from "./datasets.js";
import type { SpanEvaluationRow } from "./records.js";

type JudgeOutput = JudgeDefinition["output"];

/**
 * What the judge may answer: a CLASSIFICATION's distinct option values, a REGRESSION's min below its max; no tools.
 * `at` is where the definition sits in the body (`judge_definition` of live judging, the body itself for a saved judge).
 */
export function checkJudge(judge: JudgeDefinition, at: string[] = ["body", "judge_definition"]): void {
  const output = judge.output;
  if (output.type === "CLASSIFICATION") {
    const values = output.options.map((o) => o.value);
    const repeated = values.find((v, i) => values.indexOf(v) !== i);
    if (repeated !== undefined) throw new Unprocessable([{ loc: [...at, "output", "options"], msg: `Option value '${repeated}' is given twice`, type: "value_error" }]);
  } else if (!(output.min < output.max)) {
    throw new Unprocessable([{ loc: [...at, "output", "max"], msg: `max (${output.max}) must be greater than min (${output.min})`, type: "value_error" }]);
  }
  const tools = [...at.slice(1), "tools"].join(".");
  if (judge.tools.length) throw observabilityError(422, "FEATURE_NOT_SUPPORTED", `Judges run without tools here; ${tools} must be empty (got ${judge.tools.join(", ")})`);
}

/** The answer's JSON schema (structured output): an enum of the option values, or a number in [min, max]. */
export function judgeSchema(output: JudgeOutput): Record<string, unknown> {
  const answer = output.type === "CLASSIFICATION" ? { type: "string", enum: output.options.map((o) => o.value) } : { type: "number", minimum: output.min, maximum: output.max };
  return { type: "object", properties: { analysis: { type: "string" }, answer }, required: ["analysis", "answer"], additionalProperties: false };
}

interface ChunkLike {
  type?: unknown;
  text?: unknown;
}

const textOfContent = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? (content as ChunkLike[]).map((c) => (c?.type === "text" && typeof c.text === "string" ? c.text : "")).join("") : "";

/** The record as the judge reads it: a conversation as `role: text` turns (tool calls shown as JSON), any other payload as JSON. */
export function recordText(payload: Record<string, unknown>): string {
  if (!Array.isArray(payload.messages)) return JSON.stringify(payload, null, 2);
  return (payload.messages as Record<string, unknown>[])
    .map((m) => {
      const calls = Array.isArray(m.tool_calls) && m.tool_calls.length ? `\n[tool calls] ${JSON.stringify(m.tool_calls)}` : "";
      return `${String(m.role)}: ${textOfContent(m.content)}${calls}`;
    })
    .join("\n\n");
}

function outputRules(output: JudgeOutput): string {
  if (output.type === "CLASSIFICATION") {
    return `"answer" must be exactly one of these values:\n${output.options.map((o) => `- ${JSON.stringify(o.value)}: ${o.description}`).join("\n")}`;
  }
  return `"answer" must be a number from ${output.min} (${output.min_description}) to ${output.max} (${output.max_description}).`;
}

/** A conversation given to a saved judge as the judge reads it: its turns, then the properties sent with it (as JSON) when there are any. */
export function conversationText(messages: Record<string, unknown>[], properties?: Record<string, unknown> | null): string {
  const turns = recordText({ messages });
  return properties && Object.keys(properties).length ? `${turns}\n\nProperties of this conversation:\n${JSON.stringify(properties, null, 2)}` : turns;
}

/** What a judge is asked to judge: its kind ("dataset record", "conversation") and its text (recordText, conversationText). */
export interface JudgeSubject {
  name: string;
  text: string;
}

/** The chat messages that ask the model for the judgement of the subject. */
export function judgeMessages(judge: JudgeDefinition, subject: JudgeSubject): { role: "system" | "user"; content: string }[] {
  const system = [
    `You are a judge named ${JSON.stringify(judge.name)}${judge.description ? `: ${judge.description}` : "."}`,
    judge.instructions,
    `Answer with one JSON object {"analysis": "<your reasoning>", "answer": <your answer>}. ${outputRules(judge.output)}`,
  ]
    .filter(Boolean)
    .join("\n\n");
  return [
    { role: "system", content: system },
    { role: "user", content: `Judge this ${subject.name}:\n\n${subject.text}` },
  ];
}

/**
 * The model's answer as a judgement, or undefined when it is not one the judge allows: not JSON, no string
 * `analysis`, a CLASSIFICATION answer that is none of the option values (matched exactly, else ignoring case
 * and surrounding space, answered as the option's own value), a REGRESSION answer that is no number in [min, max].
 */
export function parseJudgement(output: JudgeOutput, content: unknown): JudgeOut | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(textOfContent(content));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const { analysis, answer } = parsed as Record<string, unknown>;
  if (typeof analysis !== "string") return undefined;
  if (output.type === "CLASSIFICATION") {
    if (typeof answer !== "string") return undefined;
    const values = output.options.map((o) => o.value);
    const value = values.find((v) => v === answer) ?? values.find((v) => v.trim().toLowerCase() === answer.trim().toLowerCase());
    return value === undefined ? undefined : { analysis, answer: value };
  }
  const number = typeof answer === "number" ? answer : typeof answer === "string" && answer.trim() !== "" ? Number(answer) : NaN;
  return Number.isFinite(number) && number >= output.min && number <= output.max ? { analysis, answer: number } : undefined;
}

/**
 * The judgement as a span evaluation: named after the judge; a CLASSIFICATION's score is the chosen option's
 * index (0 for the first) and its label the option's value, a REGRESSION's score is the number (label "");
 * the analysis is the explanation. A record made from a span is filed under that span (trace, span, response,
 * conversation); any other under empty ids, found by the dataset and record ids of its metadata.
 */
export function evaluationOf(caller: Caller, record: DatasetRecord, judge: JudgeDefinition, model: string, judgement: JudgeOut, timestamp: string): SpanEvaluationRow {
  const output = judge.output;
  const classified = output.type === "CLASSIFICATION";
  return {
    customer_id: caller.organization,
    organization_id: caller.organization,
    workspace_id: caller.workspace,
    user_id: caller.principal,
    trace_id: record.span?.traceId ?? "",
    span_id: record.span?.spanId ?? "",
    response_id: record.span?.responseId ?? "",
    conversation_id: record.span?.conversationId ?? "",
    timestamp,
    evaluation_name: judge.name,
    score_value: classified ? output.options.findIndex((o) => o.value === judgement.answer) : Number(judgement.answer),
    score_label: classified ? String(judgement.answer) : "",
    explanation: judgement.analysis,
    metadata: {
      source: "live_judging",
      dataset_id: record.datasetId,
      dataset_record_id: record.id,
      judge_model: model,
      judge_output_type: output.type,
    },
  };
}
