import { skills, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { SkillFieldsQuery, SkillOut, SkillVersionParams } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillVersionParams, query: SkillFieldsQuery, response: SkillOut }, async ({ params, query, caller }) =>
  toEntryOut(skills.kind, await skills.getVersion(caller, params.skill_id, params.version, query.fields), query.fields),
);
