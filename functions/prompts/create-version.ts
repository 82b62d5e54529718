import { prompts } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { CreateVersionOut } from "../../shared/schemas/registry.js";
import { CreatePromptVersionBody, PromptParams } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptParams, body: CreatePromptVersionBody, response: CreateVersionOut }, ({ params, body, caller }) =>
  prompts.createVersion(caller, params.prompt_id, body),
);
