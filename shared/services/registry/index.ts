/** The prompt and skill registries: one mechanism, two kinds (docs/registries.md). */
import { promptKind, skillKind } from "../../domain/registry/kinds.js";
import { registryOf } from "./registry.js";

export const prompts = registryOf(promptKind);
export const skills = registryOf(skillKind);

export { toEntryOut, toVersionOut } from "./wire.js";
export type { EntryView } from "./registry.js";
