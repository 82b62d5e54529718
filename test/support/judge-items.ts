import { randomUUID } from "node:crypto";
import type { Caller } from "../../shared/domain/caller.js";
import type { Judge } from "../../shared/domain/observability/judges.js";

/** A saved judge of `caller`'s workspace: a two-option classification on the offline catalog's chat model. */
export const aJudge = (caller: Pick<Caller, "workspace" | "principal">, overrides: Partial<Judge> = {}): Judge => ({
  workspace: caller.workspace,
  id: randomUUID(),
  ownerId: caller.principal,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  name: "answer quality",
  description: "Is the assistant's answer right?",
  model_name: "mistral-small-latest",
  output: { type: "CLASSIFICATION", options: [{ value: "good", description: "Helpful and right" }, { value: "bad", description: "Unhelpful or wrong" }] },
  instructions: "Judge the assistant's last answer.",
  tools: [],
  ...overrides,
});

/** A judge and its name's claim as the datasets table holds them (shared/store/observability/judges.ts). */
export const aJudgeItems = (judge: Judge, revision = 1): Record<string, unknown>[] => [
  {
    ...judge,
    revision,
    outputType: judge.output.type,
    pk: `WS#${judge.workspace}`,
    sk: `JUDGE#${judge.id}`,
    parentKey: `${judge.workspace}#JUDGES`,
    createdKey: `${judge.createdAt}#${judge.id}`,
  },
  { pk: `WS#${judge.workspace}`, sk: `JUDGENAME#${judge.name}`, judgeId: judge.id },
];
