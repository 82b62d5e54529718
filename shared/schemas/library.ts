import * as z from "zod";
import { Uuid } from "./common.js";
import { queryBoolean, queryInt } from "./query.js";

/**
 * Libraries and their accesses as Mistral's OpenAPI writes them (`CreateLibraryRequest`, `UpdateLibraryRequest`,
 * `Library`, `ListLibrariesResponse`, `SharingRequest`, `SharingDelete`, `Sharing`, `ListSharingResponse`) and as the
 * SDK parses them: every field its `Library` and `Sharing` require is always present (docs/libraries.md).
 */

export const OWNER_TYPES = ["User", "Workspace"] as const;
/** Who an access names (Mistral's `EntityType`). */
export const ENTITY_TYPES = ["User", "Workspace", "Org"] as const;
/** The levels a share may give (`ShareEnum`); `Owner` is the owner's own access and is never given. */
export const SHARE_LEVELS = ["Viewer", "Editor"] as const;

export const LibraryParams = z.object({ library_id: Uuid });

const Name = z.string().trim().min(1).max(512);
const Description = z.string().max(10_000);

export const CreateLibraryRequest = z.object({
  name: Name,
  description: Description.nullish(),
  chunk_size: z.number().int().min(256).max(32768).nullish().describe("Characters per chunk when documents are split; null: the ingestion's default"),
  owner_type: z.enum(OWNER_TYPES).nullish().describe("`Workspace` (the default) or `User`: a library private to the key's principal"),
});
export type CreateLibraryRequest = z.output<typeof CreateLibraryRequest>;

export const UpdateLibraryRequest = z.object({
  name: Name.optional(),
  description: Description.nullish(),
});
export type UpdateLibraryRequest = z.output<typeof UpdateLibraryRequest>;

export const ListLibrariesQuery = z.object({
  page_size: queryInt().min(1).max(100).default(100),
  page_token: z.string().min(1).max(2000).optional().describe("The `next_page_token` of the previous page"),
  page: queryInt().min(0).max(10_000).default(0).describe("Deprecated: pages by offset, reading the pages before it"),
  search: z.string().max(512).optional().describe("Case-insensitive search on the library name"),
  filter_owned_by_me: queryBoolean(false).describe("Only the libraries the caller owns"),
});
export type ListLibrariesQuery = z.output<typeof ListLibrariesQuery>;

export const LibraryOut = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  owner_id: z.string().nullable(),
  owner_type: z.string(),
  total_size: z.number().int(),
  nb_documents: z.number().int(),
  chunk_size: z.number().int().nullable(),
  emoji: z.string().nullable(),
  description: z.string().nullable(),
  generated_description: z.string().nullable(),
  explicit_user_members_count: z.number().int().nullable(),
  explicit_workspace_members_count: z.number().int().nullable(),
  org_sharing_role: z.string().nullable(),
  generated_name: z.string().nullable(),
});
export type LibraryOut = z.output<typeof LibraryOut>;

export const ListLibrariesOut = z.object({
  pagination: z.null(),
  data: z.array(LibraryOut),
  next_page_token: z.string().nullable(),
});
export type ListLibrariesOut = z.output<typeof ListLibrariesOut>;

export const SharingRequest = z.object({
  org_id: Uuid.nullish().describe("Deprecated: the organization, which can only be the caller's"),
  level: z.enum(SHARE_LEVELS),
  share_with_uuid: Uuid.describe("The user, workspace or organization to share with"),
  share_with_type: z.enum(ENTITY_TYPES),
});
export type SharingRequest = z.output<typeof SharingRequest>;

export const SharingDelete = z.object({
  org_id: Uuid.nullish().describe("Deprecated: the organization, which can only be the caller's"),
  share_with_uuid: Uuid,
  share_with_type: z.enum(ENTITY_TYPES),
});
export type SharingDelete = z.output<typeof SharingDelete>;

export const SharingOut = z.object({
  library_id: z.string(),
  user_id: z.string().nullable(),
  org_id: z.string(),
  role: z.string(),
  share_with_type: z.string(),
  share_with_uuid: z.string().nullable(),
});
export type SharingOut = z.output<typeof SharingOut>;

export const ListSharingOut = z.object({ data: z.array(SharingOut) });
export type ListSharingOut = z.output<typeof ListSharingOut>;
