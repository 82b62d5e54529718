import type { RegistryKind } from "../../domain/registry/kinds.js";
import { aliasesAt, type RegistryHead, type RegistryVersion } from "../../domain/registry/records.js";
import type { EntryView } from "./registry.js";

/**
 * An entry on the wire (Prompt, Skill): camelCase, and null fields left out, since the SDK's
 * optional fields reject null. `fields` keeps only the named top-level fields.
 */
export function toEntryOut<D>(kind: RegistryKind<D>, view: EntryView<D>, fields?: readonly string[]): Record<string, unknown> {
  const { head, at, version } = view;
  const full: Record<string, unknown> = {
    id: head.id,
    name: head.name,
    definition: version?.definition,
    version: at,
    notes: version?.notes ?? undefined,
    aliases: aliasesAt(head, at),
    sharingScope: head.sharingScope,
    createdAt: head.createdAt,
    updatedAt: head.updatedAt,
    latestVersion: head.latestVersion,
    ...(kind.display ? { title: head.title ?? undefined, description: head.description ?? undefined } : {}),
  };
  const kept = fields?.length ? fields : Object.keys(full);
  return Object.fromEntries(kept.filter((field) => full[field] !== undefined).map((field) => [field, full[field]]));
}

/** PromptVersion, SkillVersion. */
export function toVersionOut<D>(head: RegistryHead, version: RegistryVersion<D>): Record<string, unknown> {
  return {
    version: version.version,
    definition: version.definition,
    ...(version.notes === null ? {} : { notes: version.notes }),
    aliases: aliasesAt(head, version.version),
    createdAt: version.createdAt,
  };
}
