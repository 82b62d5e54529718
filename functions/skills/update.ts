import { skills, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { SkillOut, SkillParams, UpdateSkillBody } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillParams, body: UpdateSkillBody, response: SkillOut }, async ({ params, body, caller }) =>
  toEntryOut(skills.kind, await skills.update(caller, params.skill_id, body)),
);
