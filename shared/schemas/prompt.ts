/** The Prompt resource (`/v2/prompts`, beta): camelCase, proto3-JSON style, null fields omitted. */
import * as z from "zod";
import {
  ENTRY_FIELDS,
  versionBodies,
  Aliases,
  DisplayText,
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

/** A placeholder's name, as written between double braces: `{{customer_name}}`, `{{ user.name }}`. */
export const VariableName = z
  .string()
  .max(128)
  .regex(/^[A-Za-z_][\w.-]*$/, { message: "A variable name starts with a letter or '_' and holds letters, digits, '_', '.' or '-'" });

export const PromptVariable = z.strictObject({ name: VariableName });

export const PromptDefinition = z.strictObject({
  content: z.string().max(200_000),
  variables: z.array(PromptVariable).max(200).optional(),
});
export type PromptDefinition = z.infer<typeof PromptDefinition>;

export const PROMPT_FIELDS = [...ENTRY_FIELDS, "title", "description"] as const;

const Title = DisplayText(512);
const Description = z.string().max(4000);

export const CreatePromptBody = z
  .strictObject({
    name: EntryName,
    definition: PromptDefinition,
    title: Title.nullish(),
    description: Description.nullish(),
    notes: Notes.nullish(),
    sharingScope: SharingScopeIn.nullish(),
    aliases: Aliases.optional(),
    // Not in the OpenAPI body, but the SDK's CreatePromptRequest has it.
    workspaceRelation: ShareRelationIn.nullish(),
  })
  .superRefine(requireWorkspaceScopeForRelation);
export type CreatePromptBody = z.infer<typeof CreatePromptBody>;

export const UpdatePromptBody = z
  .strictObject({
    title: Title.nullish(),
    description: Description.nullish(),
    sharingScope: SharingScopeIn.nullish(),
    workspaceRelation: ShareRelationIn.nullish(),
  })
  .superRefine(requireWorkspaceScopeForRelation);
export type UpdatePromptBody = z.infer<typeof UpdatePromptBody>;

const promptVersions = versionBodies(PromptDefinition);
export const CreatePromptVersionBody = promptVersions.create;
export type CreatePromptVersionBody = z.infer<typeof CreatePromptVersionBody>;

export const UpdatePromptVersionBody = promptVersions.update;
export type UpdatePromptVersionBody = z.infer<typeof UpdatePromptVersionBody>;

export const PromptParams = z.object({ prompt_id: EntryId });
export const PromptVersionParams = z.object({ prompt_id: EntryId, version: VersionNumber });

export const PromptListQuery = listQuery(PROMPT_FIELDS);
export const PromptGetQuery = getQuery(PROMPT_FIELDS);
export const PromptFieldsQuery = fieldsQuery(PROMPT_FIELDS);

const Timestamp = z.string();

/** Every field optional: a `fields` projection may leave any of them out, and null ones are omitted. */
export const PromptOut = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  definition: z.object({ content: z.string(), variables: z.array(z.object({ name: z.string() })).optional() }).optional(),
  version: z.number().int().optional(),
  notes: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  sharingScope: SharingScope.optional(),
  createdAt: Timestamp.optional(),
  updatedAt: Timestamp.optional(),
  latestVersion: z.number().int().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
});
export type PromptOut = z.infer<typeof PromptOut>;

export const PromptListOut = z.object({ data: z.array(PromptOut), nextPageToken: z.string().optional() });

export const PromptVersionOut = z.object({
  version: z.number().int(),
  definition: PromptOut.shape.definition,
  notes: z.string().optional(),
  aliases: z.array(z.string()),
  createdAt: Timestamp,
});
export const PromptVersionListOut = z.object({ data: z.array(PromptVersionOut) });
