import { prompts, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { PromptOut, PromptParams, UpdatePromptBody } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptParams, body: UpdatePromptBody, response: PromptOut }, async ({ params, body, caller }) =>
  toEntryOut(prompts.kind, await prompts.update(caller, params.prompt_id, body)),
);
