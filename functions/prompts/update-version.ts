import { prompts, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { PromptOut, PromptVersionParams, UpdatePromptVersionBody } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptVersionParams, body: UpdatePromptVersionBody, response: PromptOut }, async ({ params, body, caller }) =>
  toEntryOut(prompts.kind, await prompts.updateVersion(caller, params.prompt_id, params.version, body)),
);
