/** The Skill resource (`/v2/skills`, beta): the OpenAPI's `Skill` and `CreateSkillRequest`, camelCase, null fields omitted. */
import * as z from "zod";
import {
  ENTRY_FIELDS,
  versionBodies,
  Aliases,
  EntryId,
  EntryName,
  Notes,
  requireWorkspaceScopeForRelation,
  SharingScope,
  SharingScopeIn,
  ShareRelationIn,
  VersionNumber,
  fieldsQuery,
  getQuery,
  listQuery,
} from "./registry.js";

/** A file the skill carries: raw bytes (base64) or text, exactly one of them. */
export const SkillAssetContent = z.union([
  z.strictObject({ rawContent: z.base64({ message: "rawContent should be base64" }), isExecutable: z.boolean().optional() }),
  z.strictObject({ textContent: z.string(), isExecutable: z.boolean().optional() }),
]);

const AssetPath = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[^\u0000-\u001f\u007f]+$/, { message: "An asset path should not contain control characters" });

export const SkillDefinition = z.strictObject({
  description: z.string().max(10_000).optional(),
  body: z.string().optional(),
  assets: z.record(AssetPath, SkillAssetContent).optional(),
});
export type SkillDefinition = z.infer<typeof SkillDefinition>;

export const SKILL_FIELDS = ENTRY_FIELDS;

export const CreateSkillBody = z
  .strictObject({
    name: EntryName,
    definition: SkillDefinition,
    notes: Notes.nullish(),
    sharingScope: SharingScopeIn.nullish(),
    aliases: Aliases.optional(),
    // Not in the OpenAPI body, but the SDK's CreateSkillRequest has it.
    workspaceRelation: ShareRelationIn.nullish(),
  })
  .superRefine(requireWorkspaceScopeForRelation);
export type CreateSkillBody = z.infer<typeof CreateSkillBody>;

/** The OpenAPI's UpdateSkillRequest (sharing only) plus the SDK's `workspaceRelation`. */
export const UpdateSkillBody = z
  .strictObject({
    sharingScope: SharingScopeIn.nullish(),
    workspaceRelation: ShareRelationIn.nullish(),
  })
  .superRefine(requireWorkspaceScopeForRelation);

const skillVersions = versionBodies(SkillDefinition);
export const CreateSkillVersionBody = skillVersions.create;
export const UpdateSkillVersionBody = skillVersions.update;

export const SkillParams = z.object({ skill_id: EntryId });
export const SkillVersionParams = z.object({ skill_id: EntryId, version: VersionNumber });

export const SkillListQuery = listQuery(SKILL_FIELDS);
export const SkillGetQuery = getQuery(SKILL_FIELDS);
export const SkillFieldsQuery = fieldsQuery(SKILL_FIELDS);

const SkillDefinitionOut = z.object({
  description: z.string().optional(),
  body: z.string().optional(),
  assets: z
    .record(
      z.string(),
      z.object({ rawContent: z.string().optional(), textContent: z.string().optional(), isExecutable: z.boolean().optional() }),
    )
    .optional(),
});

export const SkillOut = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  definition: SkillDefinitionOut.optional(),
  version: z.number().int().optional(),
  notes: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  sharingScope: SharingScope.optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  latestVersion: z.number().int().optional(),
});

export const SkillListOut = z.object({ data: z.array(SkillOut), nextPageToken: z.string().optional() });

export const SkillVersionOut = z.object({
  version: z.number().int(),
  definition: SkillDefinitionOut,
  notes: z.string().optional(),
  aliases: z.array(z.string()),
  createdAt: z.string(),
});
export const SkillVersionListOut = z.object({ data: z.array(SkillVersionOut) });
