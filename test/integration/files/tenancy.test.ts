import { beforeEach, describe, expect, it } from "vitest";
import type { FileOut } from "../../../shared/schemas/file.js";
import { useEmbeddedApi } from "../../support/api.js";
import { fetchAnonymously, filesClient, objectExists, type FilesClient } from "../../support/files-client.js";
import { newTenant } from "../../support/tenant.js";

/** Two principals of one workspace, and a stranger from another organization. */
const { api, tenant: owner } = useEmbeddedApi();
const mine = filesClient(api, owner);
let colleague: FilesClient;
let stranger: FilesClient;

beforeEach(async () => {
  colleague = filesClient(api, await newTenant({ organization: owner.caller.organization, workspace: owner.caller.workspace }));
  stranger = filesClient(api, await newTenant());
});

const ids = (data: FileOut[]) => data.map((f) => f.id).sort();

describe("another workspace's files", () => {
  let file: FileOut;

  beforeEach(async () => {
    file = await mine.uploaded({ filename: "secret.jsonl" });
  });

  it("never appear in its list, with or without filters", async () => {
    await stranger.uploaded({ filename: "theirs.jsonl" });
    const all = await stranger.list();
    expect(all.body.total).toBe(1);
    expect(ids(all.body.data)).not.toContain(file.id);
    expect((await stranger.list({ search: "secret" })).body).toMatchObject({ data: [], total: 0 });
    expect((await mine.list()).body).toMatchObject({ total: 1, data: [file] });
  });

  it("answer 404, not 403, to retrieve, content, signed URL and delete", async () => {
    for (const reply of [
      await stranger.retrieve(file.id),
      await stranger.content(file.id),
      await stranger.signedUrl(file.id),
      await stranger.remove(file.id),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body).toMatchObject({ type: "not_found_error", code: "file_not_found" });
    }
    expect((await mine.retrieve(file.id)).status).toBe(200);
    expect(await objectExists(owner.caller.workspace, file.id)).toBe(true);
  });

  it("cannot be reached with a signed URL minted for its own file", async () => {
    const theirs = await stranger.uploaded({ filename: "theirs.jsonl" });
    const url = new URL((await stranger.signedUrl(theirs.id)).body.url);
    url.pathname = `/v1/files/${file.id}/download`;
    expect((await fetchAnonymously(url.toString())).status).toBe(403);
  });
});

describe("files with visibility user", () => {
  let privateFile: FileOut;
  let sharedFile: FileOut;

  beforeEach(async () => {
    privateFile = await mine.uploaded({ filename: "private.jsonl", visibility: "user" });
    sharedFile = await mine.uploaded({ filename: "shared.jsonl", visibility: "workspace" });
  });

  it("are listed and counted for their creator only", async () => {
    const forOwner = await mine.list();
    expect(forOwner.body.total).toBe(2);
    expect(ids(forOwner.body.data)).toEqual(ids([privateFile, sharedFile]));

    const forColleague = await colleague.list();
    expect(forColleague.body.total).toBe(1);
    expect(ids(forColleague.body.data)).toEqual([sharedFile.id]);
    expect((await colleague.list({ search: "private" })).body).toMatchObject({ data: [], total: 0 });
  });

  it("answer 404 to another principal and stay intact", async () => {
    expect((await colleague.retrieve(privateFile.id)).status).toBe(404);
    expect((await colleague.content(privateFile.id)).status).toBe(404);
    expect((await colleague.signedUrl(privateFile.id)).status).toBe(404);
    expect((await colleague.remove(privateFile.id)).status).toBe(404);

    expect((await mine.retrieve(privateFile.id)).body).toEqual({ ...privateFile, deleted: false });
    expect(await objectExists(owner.caller.workspace, privateFile.id)).toBe(true);
  });

  it("leave workspace files readable and deletable by the whole workspace", async () => {
    expect((await colleague.retrieve(sharedFile.id)).body).toEqual({ ...sharedFile, deleted: false });
    expect((await colleague.remove(sharedFile.id)).status).toBe(200);
    expect((await mine.retrieve(sharedFile.id)).status).toBe(404);
  });

  it("list a colleague's own user files to that colleague", async () => {
    const theirs = await colleague.uploaded({ filename: "colleague.jsonl", visibility: "user" });
    expect(ids((await colleague.list()).body.data)).toEqual(ids([theirs, sharedFile]));
    expect(ids((await mine.list()).body.data)).toEqual(ids([privateFile, sharedFile]));
  });
});
