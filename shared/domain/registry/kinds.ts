import type { PromptDefinition } from "../../schemas/prompt.js";
import type { SkillDefinition } from "../../schemas/skill.js";
import { withVariables } from "./prompt-variables.js";
import type { RegistryKindName } from "./records.js";

/** What differs between the registries; everything else (storage, versions, aliases, sharing, paging) is shared. */
export interface RegistryKind<D> {
  name: RegistryKindName;
  /** Prompts carry a display title and description; skills do not. */
  display: boolean;
  /** Completes and checks a definition before it is stored (throws Unprocessable). */
  normalize(definition: D): D;
}

export const promptKind: RegistryKind<PromptDefinition> = { name: "prompt", display: true, normalize: withVariables };

export const skillKind: RegistryKind<SkillDefinition> = { name: "skill", display: false, normalize: (definition) => definition };
