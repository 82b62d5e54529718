import { prompts, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { CreatePromptBody, PromptOut } from "../../shared/schemas/prompt.js";

export const handler = route({ body: CreatePromptBody, response: PromptOut }, async ({ body, caller }) =>
  toEntryOut(prompts.kind, await prompts.create(caller, body)),
);
