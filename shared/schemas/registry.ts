/**
 * What prompts and skills share on the wire (`/v2/prompts`, `/v2/skills`): sharing, aliases, the list
 * query with its two spellings of sorting, the `fields` projection. Per-kind shapes are in
 * prompt.ts and skill.ts.
 */
import * as z from "zod";
import { repeated } from "./query.js";

/** `sharing_scope_unspecified` and null mean private, the default. */
export const SharingScopeIn = z.enum(["sharing_scope_unspecified", "private", "workspace"]);
export const SharingScope = z.enum(["private", "workspace"]);
export type SharingScope = z.infer<typeof SharingScope>;

/** What every workspace member may do with a shared entry; `share_relation_unspecified` means the default, writer. */
export const ShareRelationIn = z.enum(["share_relation_unspecified", "reader", "writer"]);
export const ShareRelation = z.enum(["reader", "writer"]);
export type ShareRelation = z.infer<typeof ShareRelation>;

/** Text stored in keys and shown in lists: no control characters. */
const printable = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\u0000-\u001f\u007f]*$/, { message: "String should not contain control characters" });

export const EntryName = printable(256).min(1);
export const DisplayText = (max: number) => printable(max);
export const Notes = z.string().max(10_000);

/** An alias label: short, URL-safe, so it can travel in a query string unescaped. */
export const AliasName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { message: "An alias is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit" });
export const Aliases = z.array(AliasName).max(50);

/** Presence wrapper on version updates: omitted leaves aliases alone, `{values: []}` clears them. */
export const AliasList = z.strictObject({ values: Aliases.optional() });

/** Entry ids are our UUIDs; anything else simply is not found. */
export const EntryId = z.string().min(1).max(128);
export const VersionNumber = z.coerce.number<string>().int().min(1).max(2_147_483_647);

/** The request may set `workspaceRelation` only together with `sharingScope: workspace` (spec, Errors). */
export function requireWorkspaceScopeForRelation(body: { sharingScope?: string | null; workspaceRelation?: string | null }, ctx: z.RefinementCtx) {
  if (body.workspaceRelation != null && body.sharingScope !== "workspace") {
    ctx.addIssue({
      code: "custom",
      path: ["workspaceRelation"],
      message: "workspaceRelation is allowed only with sharingScope 'workspace'",
      input: body.workspaceRelation,
    });
  }
}

export type SortField = "created_at" | "last_modified_at" | "name" | "title";
export type SortDirection = "asc" | "desc";

const lower = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : v);

/** Both spellings: ours (`created_at`) and the SDK's proto enum (`list_sort_field_created_at`); unspecified means the default. */
const SortFieldParam = z.preprocess(
  lower,
  z
    .enum([
      "created_at",
      "last_modified_at",
      "name",
      "title",
      "list_sort_field_created_at",
      "list_sort_field_last_modified_at",
      "list_sort_field_name",
      "list_sort_field_title",
      "list_sort_field_unspecified",
    ])
    .transform((v): SortField | undefined => (v === "list_sort_field_unspecified" ? undefined : (v.replace("list_sort_field_", "") as SortField))),
);

const SortDirectionParam = z.preprocess(
  lower,
  z
    .enum(["asc", "desc", "list_sort_direction_asc", "list_sort_direction_desc", "list_sort_direction_unspecified"])
    .transform((v): SortDirection | undefined => (v === "list_sort_direction_unspecified" ? undefined : (v.replace("list_sort_direction_", "") as SortDirection))),
);

/** Timestamps newest first, text A to Z, unless the request says otherwise (spec, ListSortDirection). */
export const defaultDirection = (field: SortField): SortDirection => (field === "name" || field === "title" ? "asc" : "desc");

/**
 * `fields`: a projection of the entry, repeated (`fields=id&fields=name`) or comma-separated as a
 * FieldMask (`fields=id,name`), camelCase or snake_case; only top-level fields, so a projected
 * `definition` stays whole (the SDK requires `content` in it).
 */
export function fieldsParam(known: readonly string[]) {
  const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const byWireName = new Map<string, string>(known.flatMap((name) => [[name, name], [snake(name), name]]));
  return repeated(z.string())
    .transform((values) => values?.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean))
    .pipe(
      z
        .array(
          z.string().transform((name, ctx) => {
            const field = byWireName.get(name);
            if (!field) {
              ctx.addIssue({ code: "custom", message: `Unknown field '${name}'; known fields: ${known.join(", ")}`, input: name });
              return z.NEVER;
            }
            return field;
          }),
        )
        .optional(),
    );
}

/** GET /v2/prompts and /v2/skills. */
export function listQuery(fields: readonly string[]) {
  return z
    .object({
      // 0 is the proto default: the server's page size.
      pageSize: z.coerce.number<string>().int().min(0).max(100).optional(),
      pageToken: z.string().max(2048).optional(),
      alias: AliasName.optional(),
      fields: fieldsParam(fields),
      "sort.field": SortFieldParam.optional(),
      "sort.direction": SortDirectionParam.optional(),
      sort_by: SortFieldParam.optional(),
      sort_direction: SortDirectionParam.optional(),
    })
    .superRefine((q, ctx) => {
      if (q["sort.field"] && q.sort_by && q["sort.field"] !== q.sort_by) {
        ctx.addIssue({ code: "custom", path: ["sort_by"], message: "sort_by and sort.field name different fields", input: q.sort_by });
      }
      if (q["sort.direction"] && q.sort_direction && q["sort.direction"] !== q.sort_direction) {
        ctx.addIssue({ code: "custom", path: ["sort_direction"], message: "sort_direction and sort.direction disagree", input: q.sort_direction });
      }
    })
    .transform((q) => {
      const field = q.sort_by ?? q["sort.field"] ?? "created_at";
      return {
        pageSize: q.pageSize || DEFAULT_PAGE_SIZE,
        pageToken: q.pageToken || undefined,
        alias: q.alias,
        fields: q.fields,
        sort: { field, direction: q.sort_direction ?? q["sort.direction"] ?? defaultDirection(field) },
      };
    });
}
export type RegistryListQuery = z.output<ReturnType<typeof listQuery>>;

/** Not in the spec; the page also has to fit one BatchGet of versions (100 keys). */
export const DEFAULT_PAGE_SIZE = 50;

/** GET /v2/{kind}/{id}: one of `version` and `alias` at most. */
export function getQuery(fields: readonly string[]) {
  return z
    .object({ version: VersionNumber.optional(), alias: AliasName.optional(), fields: fieldsParam(fields) })
    .superRefine((q, ctx) => {
      if (q.version !== undefined && q.alias !== undefined) {
        ctx.addIssue({ code: "custom", path: ["alias"], message: "Give either version or alias, not both", input: q.alias });
      }
    });
}

export const fieldsQuery = (fields: readonly string[]) => z.object({ fields: fieldsParam(fields) });

/** Fields every registry entry has (prompts add their display fields); what `fields` may project. */
export const ENTRY_FIELDS = ["id", "name", "definition", "version", "notes", "aliases", "sharingScope", "createdAt", "updatedAt", "latestVersion"] as const;

/** The version bodies of a kind: a new version carries its definition; a version's notes and aliases change later. */
export function versionBodies<D extends z.ZodType>(definition: D) {
  return {
    create: z.strictObject({ definition, notes: Notes.nullish(), aliases: Aliases.optional() }),
    update: z.strictObject({ notes: Notes.nullish(), aliases: AliasList.optional() }),
  };
}

export const CreateVersionOut = z.object({ version: z.number().int(), deduplicated: z.boolean() });
export const DeletedOut = z.object({});
