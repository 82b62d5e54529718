import { prompts, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { PromptGetQuery, PromptOut, PromptParams } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptParams, query: PromptGetQuery, response: PromptOut }, async ({ params, query, caller }) =>
  toEntryOut(prompts.kind, await prompts.get(caller, params.prompt_id, query), query.fields),
);
