import { prompts, toVersionOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { PromptParams, PromptVersionListOut } from "../../shared/schemas/prompt.js";

export const handler = route({ params: PromptParams, response: PromptVersionListOut }, async ({ params, caller }) => {
  const { head, versions } = await prompts.listVersions(caller, params.prompt_id);
  return { data: versions.map((version) => toVersionOut(head, version)) };
});
