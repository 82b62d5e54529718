import { prompts } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { DeletedOut } from "../../shared/schemas/registry.js";
import { PromptParams } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptParams, response: DeletedOut }, async ({ params, caller }) => {
  await prompts.remove(caller, params.prompt_id);
  return {};
});
