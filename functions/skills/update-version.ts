import { skills, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { SkillOut, SkillVersionParams, UpdateSkillVersionBody } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillVersionParams, body: UpdateSkillVersionBody, response: SkillOut }, async ({ params, body, caller }) =>
  toEntryOut(skills.kind, await skills.updateVersion(caller, params.skill_id, params.version, body)),
);
