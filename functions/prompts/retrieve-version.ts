import { prompts, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { PromptFieldsQuery, PromptOut, PromptVersionParams } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptVersionParams, query: PromptFieldsQuery, response: PromptOut }, async ({ params, query, caller }) =>
  toEntryOut(prompts.kind, await prompts.getVersion(caller, params.prompt_id, params.version, query.fields), query.fields),
);
