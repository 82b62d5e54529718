import { skills, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { SkillGetQuery, SkillOut, SkillParams } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillParams, query: SkillGetQuery, response: SkillOut }, async ({ params, query, caller }) =>
  toEntryOut(skills.kind, await skills.get(caller, params.skill_id, query), query.fields),
);
