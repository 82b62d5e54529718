import { skills } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { DeletedOut } from "../../shared/schemas/registry.js";
import { SkillParams } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillParams, response: DeletedOut }, async ({ params, caller }) => {
  await skills.remove(caller, params.skill_id);
  return {};
});
