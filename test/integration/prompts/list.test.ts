import { describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../../support/api.js";
import { aPromptBody, registryClient } from "../../support/registry-client.js";

const { api, tenant } = useEmbeddedApi();
const prompts = registryClient(api, tenant);

interface Listed {
  id: string;
  name: string;
  title?: string;
  createdAt: string;
  updatedAt: string;
}

/** Created one after another, so their creation times are in this order (ties broken by id, as the list does). */
async function createAll(bodies: Record<string, unknown>[]): Promise<Listed[]> {
  const out: Listed[] = [];
  for (const body of bodies) out.push(await prompts.created(aPromptBody(body)));
  return out;
}

const byTime = (key: "createdAt" | "updatedAt") => (a: Listed, b: Listed) => a[key].localeCompare(b[key]) || (a.id < b.id ? -1 : 1);
const ids = (items: { id: string }[]) => items.map((p) => p.id);

/** Every page of a list, following nextPageToken. */
async function allPages(query: Record<string, string | number | string[]>) {
  const pages: Listed[][] = [];
  let pageToken: string | undefined;
  do {
    const reply = await prompts.list({ ...query, pageToken });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    pages.push(reply.body.data);
    pageToken = reply.body.nextPageToken;
  } while (pageToken && pages.length < 20);
  return pages;
}

describe("GET /v2/prompts", () => {
  it("answers 200 JSON with {data} of Prompts, newest first, and no nextPageToken on the last page", async () => {
    const created = await createAll([{}, {}, {}]);

    const reply = await prompts.list();

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toStrictEqual({ data: [...created].sort(byTime("createdAt")).reverse() });
  });

  it("answers an empty list for a workspace without prompts", async () => {
    expect((await prompts.list()).body).toStrictEqual({ data: [] });
  });

  it("pages with pageSize and nextPageToken, every prompt exactly once", async () => {
    const created = await createAll([{}, {}, {}, {}, {}]);

    const pages = await allPages({ pageSize: 2 });

    expect(pages.map((p) => p.length)).toStrictEqual([2, 2, 1]);
    expect(ids(pages.flat())).toStrictEqual(ids([...created].sort(byTime("createdAt")).reverse()));
  });

  it("sorts by name A to Z by default for sort_by=name, ignoring case", async () => {
    await createAll([{ name: "beta" }, { name: "Alpha" }, { name: "gamma" }, { name: "alpha-2" }]);

    const reply = await prompts.list({ sort_by: "name" });

    expect(reply.body.data.map((p: Listed) => p.name)).toStrictEqual(["Alpha", "alpha-2", "beta", "gamma"]);
  });

  it("takes the SDK's spellings: sort.field=list_sort_field_name, sort.direction=list_sort_direction_desc", async () => {
    await createAll([{ name: "b" }, { name: "a" }, { name: "c" }]);

    const reply = await prompts.list({ "sort.field": "list_sort_field_name", "sort.direction": "list_sort_direction_desc" });

    expect(reply.body.data.map((p: Listed) => p.name)).toStrictEqual(["c", "b", "a"]);
  });

  it("takes sort_direction=asc for creation time", async () => {
    const created = await createAll([{}, {}, {}]);

    const reply = await prompts.list({ sort_by: "created_at", sort_direction: "asc" });

    expect(ids(reply.body.data)).toStrictEqual(ids([...created].sort(byTime("createdAt"))));
  });

  it("treats list_sort_field_unspecified as created_at", async () => {
    const created = await createAll([{}, {}]);

    const reply = await prompts.list({ "sort.field": "list_sort_field_unspecified", "sort.direction": "list_sort_direction_unspecified" });

    expect(ids(reply.body.data)).toStrictEqual(ids([...created].sort(byTime("createdAt")).reverse()));
  });

  it("sorts by title, untitled prompts first", async () => {
    await createAll([{ name: "n1", title: "Zebra" }, { name: "n2" }, { name: "n3", title: "apple" }]);

    const reply = await prompts.list({ sort_by: "title" });

    expect(reply.body.data.map((p: Listed) => p.name)).toStrictEqual(["n2", "n3", "n1"]);
  });

  it("sorts by last modification, newest first: an update moves a prompt to the front", async () => {
    const [first, second] = await createAll([{ name: "first" }, { name: "second" }]);
    expect((await prompts.update(first!.id, { title: "touched" })).status).toBe(200);

    const reply = await prompts.list({ sort_by: "last_modified_at" });

    expect(ids(reply.body.data)).toStrictEqual([first!.id, second!.id]);
  });

  it("keeps the order across pages for text sorts", async () => {
    await createAll(["e", "a", "d", "b", "c"].map((name) => ({ name })));

    const pages = await allPages({ sort_by: "name", pageSize: 2 });

    expect(pages.flat().map((p) => p.name)).toStrictEqual(["a", "b", "c", "d", "e"]);
  });

  it("projects each prompt onto the requested fields, repeated, comma-separated or snake_case", async () => {
    const [prompt] = await createAll([{ title: "T" }]);

    const repeated = await prompts.list({ fields: ["id", "name"] });
    const masked = await prompts.list({ fields: "id,latest_version,sharing_scope" });

    expect(repeated.body.data).toStrictEqual([{ id: prompt!.id, name: prompt!.name }]);
    expect(masked.body.data).toStrictEqual([{ id: prompt!.id, latestVersion: 1, sharingScope: "private" }]);
  });

  it("answers 422 naming an unknown field", async () => {
    const reply = await prompts.list({ fields: ["id", "secret"] });

    expect(reply.status).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ["query", "fields", 1], msg: expect.stringContaining("secret") });
  });

  it("lists with alias only the prompts that have it, each at the version it points to", async () => {
    const [tagged, , moved] = await createAll([{ aliases: ["prod"] }, {}, {}]);
    await prompts.versionCreated(moved!.id, { definition: { content: "v2" }, aliases: ["prod"] });
    await prompts.versionCreated(moved!.id, { definition: { content: "v3" } });

    const reply = await prompts.list({ alias: "prod", sort_by: "name" });

    const byId = new Map(reply.body.data.map((p: Listed & { version: number }) => [p.id, p.version]));
    expect(byId).toStrictEqual(new Map([[tagged!.id, 1], [moved!.id, 2]]));
    expect(reply.body.data.find((p: Listed) => p.id === moved!.id)).toMatchObject({ latestVersion: 3, definition: { content: "v2" }, aliases: ["prod"] });
  });

  it("answers 422 for a pageToken that is not one of ours, as every cursor-paged list does", async () => {
    const reply = await prompts.list({ pageToken: "not-a-token" });

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([{ loc: ["query", "pageToken"], msg: "Invalid page token", type: "value_error" }]);
  });

  it("answers 422 for a pageToken of another sort order", async () => {
    await createAll([{}, {}]);
    const token = (await prompts.list({ pageSize: 1 })).body.nextPageToken;
    expect(token).toEqual(expect.any(String));

    const reply = await prompts.list({ pageSize: 1, pageToken: token, sort_by: "name" });

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([{ loc: ["query", "pageToken"], msg: "Invalid page token: it belongs to another sort order", type: "value_error" }]);
  });

  it("uses the default page size for pageSize=0 and answers 422 above 100", async () => {
    await createAll([{}]);

    expect((await prompts.list({ pageSize: 0 })).body.data).toHaveLength(1);
    const reply = await prompts.list({ pageSize: 101 });
    expect(reply.status).toBe(422);
    expect(reply.body.detail[0]).toMatchObject({ loc: ["query", "pageSize"], type: "less_than_equal" });
  });

  it("answers 422 for an unknown sort field and for contradicting spellings", async () => {
    expect((await prompts.list({ sort_by: "size" })).status).toBe(422);
    const reply = await prompts.list({ sort_by: "name", "sort.field": "list_sort_field_title" });
    expect(reply.status).toBe(422);
    expect(reply.body.detail[0].loc).toStrictEqual(["query", "sort_by"]);
  });
});
