import { skills } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { CreateVersionOut } from "../../shared/schemas/registry.js";
import { CreateSkillVersionBody, SkillParams } from "../../shared/schemas/skill.js";

export const handler = route({ params: SkillParams, body: CreateSkillVersionBody, response: CreateVersionOut }, ({ params, body, caller }) =>
  skills.createVersion(caller, params.skill_id, body),
);
