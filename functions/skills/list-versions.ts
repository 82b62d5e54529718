import { skills, toVersionOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { SkillParams, SkillVersionListOut } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillParams, response: SkillVersionListOut }, async ({ params, caller }) => {
  const { head, versions } = await skills.listVersions(caller, params.skill_id);
  return { data: versions.map((version) => toVersionOut(head, version)) };
});
