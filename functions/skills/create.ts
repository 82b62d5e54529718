import { skills, toEntryOut } from "../../shared/services/registry/index.js";
import { route } from "../route.js";
import { CreateSkillBody, SkillOut } from "../../shared/schemas/skill.js";

export const handler = route({ body: CreateSkillBody, response: SkillOut }, async ({ body, caller }) =>
  toEntryOut(skills.kind, await skills.create(caller, body)),
);
