import { prompts, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { PromptListOut, PromptListQuery } from "../../shared/schemas/prompt.js";

export const handler = route({ query: PromptListQuery, response: PromptListOut }, async ({ query, caller }) => {
  const { views, nextPageToken } = await prompts.list(caller, query);
  return { data: views.map((view) => toEntryOut(prompts.kind, view, query.fields)), nextPageToken };
});
