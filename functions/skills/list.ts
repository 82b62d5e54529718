import { skills, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { SkillListOut, SkillListQuery } from "../../shared/schemas/skill.js";

export const handler = route({ query: SkillListQuery, response: SkillListOut }, async ({ query, caller }) => {
  const { views, nextPageToken } = await skills.list(caller, query);
  return { data: views.map((view) => toEntryOut(skills.kind, view, query.fields)), nextPageToken };
});
